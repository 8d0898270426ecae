{
  "targets": [
    {
      "target_name": "flite",
      "sources": ["src/addon.cc", "src/synth.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "/usr/include/flite"],
      "cflags": ["-O2"],
      "cflags_cc": ["-std=c++17"],
      "libraries": [
        "-lflite_cmu_us_rms",
        "-lflite_cmu_us_awb",
        "-lflite_cmu_us_slt",
        "-lflite_cmu_us_kal",
        "-lflite_cmu_us_kal16",
        "-lflite_usenglish",
        "-lflite_cmulex",
        "-lflite",
        "-lm"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"]
    }
  ]
}
