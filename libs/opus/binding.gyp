{
  "targets": [
    {
      "target_name": "opus",
      "sources": ["src/addon.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "/usr/include/opus"],
      "cflags": ["-O2"],
      "cflags_cc": ["-std=c++17"],
      "libraries": ["-lopus"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"]
    }
  ]
}
