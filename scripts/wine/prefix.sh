# Sourced by the scripts that run Windows binaries under Wine: sets wine (the wine64 loader),
# WINEPREFIX (.cache/wine in the repository) and WINEDEBUG, creates the prefix on first use,
# and puts in it the bcryptprimitives.dll stand-in (scripts/wine/bcryptprimitives.c) that the
# Go runtime needs and Wine 8 (Debian 12's) does not ship. Needs wine64 and mingw-w64.
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
[ -x "$wine" ] || { echo "wine64 missing (apt-get install wine64)" >&2; exit 1; }
export WINEPREFIX="$repo/.cache/wine" WINEDEBUG=-all
mkdir -p "$WINEPREFIX"
sys32="$WINEPREFIX/drive_c/windows/system32"
[ -d "$sys32" ] || "$wine" cmd.exe /c ver >/dev/null 2>&1 || true
if ! [ -f "$sys32/bcryptprimitives.dll" ] || grep -q 'Wine placeholder' "$sys32/bcryptprimitives.dll" 2>/dev/null; then
  x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" "$repo/scripts/wine/bcryptprimitives.c" -lbcrypt
fi
