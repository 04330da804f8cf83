{
  "targets": [{
    "target_name": "sexton",
    "sources": [
      "native/addon.cc", "native/process.cc", "native/reaped_commands.cc", "native/reaper.cc",
      "native/signals.cc", "native/spawn.cc", "native/state.cc"
    ],
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
    "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
    "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-fno-exceptions"],
    "ldflags": ["-static-libstdc++", "-static-libgcc", "-pthread"]
  }]
}
