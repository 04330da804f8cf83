{
  "variables": {
    "tool_cflags_cc": ["-std=c++17", "-fno-exceptions", "-fno-rtti", "-ffunction-sections", "-fdata-sections"],
    "tool_ldflags": ["-static-libstdc++", "-static-libgcc", "-Wl,--gc-sections"]
  },
  "targets": [{
    "target_name": "sexton",
    "sources": ["<!@(node -p \"require('fs').readdirSync('native').filter((f) => /\\.cc?$/.test(f)).map((f) => 'native/' + f).concat('native/compat/glibc_compat.c').join(' ')\")"],
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
    "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
    "cflags": ["-Wall", "-Wextra"],
    "cflags_cc": ["-std=c++17", "-fno-exceptions"],
    "ldflags": ["-static-libstdc++", "-static-libgcc", "-pthread", "-Wl,--exclude-libs,ALL"]
  }, {
    "target_name": "sexton-probe",
    "type": "executable",
    "sources": ["<!@(node -p \"require('./native/tools/sources.json')['sexton-probe'].join(' ')\")"],
    "cflags": ["-Wall", "-Wextra"],
    "cflags_cc": ["<@(tool_cflags_cc)"],
    "ldflags": ["<@(tool_ldflags)"]
  }, {
    "target_name": "sexton-status",
    "type": "executable",
    "sources": ["<!@(node -p \"require('./native/tools/sources.json')['sexton-status'].join(' ')\")"],
    "cflags": ["-Wall", "-Wextra"],
    "cflags_cc": ["<@(tool_cflags_cc)"],
    "ldflags": ["<@(tool_ldflags)"]
  }]
}
