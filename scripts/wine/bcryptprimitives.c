/* A stand-in for bcryptprimitives.dll, which Wine 8 (Debian 12's) does not ship and the Go
 * runtime loads at start for ProcessPrng, its source of random bytes. Only the Wine tests use
 * it (scripts/test-cross.sh puts it in the Wine prefix's system32); real Windows has its own.
 * ProcessPrng fills the buffer from the system's generator through BCryptGenRandom. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
