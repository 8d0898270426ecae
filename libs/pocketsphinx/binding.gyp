{
  "targets": [
    {
      "target_name": "pocketsphinx",
      "sources": ["src/addon.cc", "src/decoder.cc", "src/workers.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "cflags": ["<!@(pkg-config --cflags pocketsphinx)", "-O2"],
      "cflags_cc": ["-std=c++17"],
      "libraries": ["<!@(pkg-config --libs pocketsphinx)"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"]
    }
  ]
}
