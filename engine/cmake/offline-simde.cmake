# CMake toolchain redirect for building deno_core's QuickJS facade offline (cargo feature
# `deno-quickjs` of ptc-engine). Its WebAssembly interpreter (WAMR) fetches the `simde` headers
# with FetchContent; point that at Debian's copy (`apt-get install libsimde-dev`) and never touch
# the network. `.cargo/config.toml` passes this file to every build script as CMAKE_TOOLCHAIN_FILE.
set(FETCHCONTENT_SOURCE_DIR_SIMDE "/usr/include" CACHE PATH "simde headers from libsimde-dev" FORCE)
set(FETCHCONTENT_FULLY_DISCONNECTED ON CACHE BOOL "never download during a build" FORCE)
