# Cross build for Windows x64 from Linux with Debian's mingw-w64 (scripts/build-win.sh).
# The -posix variants: their libstdc++ has std::thread and std::mutex (winpthreads), which the
# addon and the tests use; the -win32 variants do not.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(TRADEAPI_MINGW_PREFIX x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${TRADEAPI_MINGW_PREFIX}-gcc-posix)
set(CMAKE_CXX_COMPILER ${TRADEAPI_MINGW_PREFIX}-g++-posix)
set(CMAKE_RC_COMPILER ${TRADEAPI_MINGW_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${TRADEAPI_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Everything static (libgcc, libstdc++, winpthreads): a Windows machine has none of mingw's DLLs.
# --no-insert-timestamp: the same sources give the same bytes (a PE header holds a link time otherwise).
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -Wl,--no-insert-timestamp")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static -Wl,--no-insert-timestamp")
