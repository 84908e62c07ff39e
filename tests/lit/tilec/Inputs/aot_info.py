# aot_info.py FILE - prints the kernel metadata `tilec compile --emit
# ptx|cubin` embeds (api/AotInfo.h), decoded from the bytes themselves: for
# PTX the initializer of __tile_kernel_info (its declared size must match
# and its last byte be NUL), for a cubin the bytes in the ELF image from
# "tile-aot " to the NUL. The first line says which it was.
import re
import sys

data = open(sys.argv[1], "rb").read()
if data[:4] == b"\x7fELF":
    if b"__tile_kernel_info\0" not in data:
        sys.exit("no __tile_kernel_info symbol in the cubin")
    start = data.find(b"tile-aot ")
    text = data[start:data.index(b"\0", start)]
    print("cubin")
else:
    m = re.search(rb"\.visible \.global \.align 1 \.b8 __tile_kernel_info\[(\d+)\] = \{([^}]*)\};", data)
    if not m:
        sys.exit("no __tile_kernel_info array in the PTX")
    values = [int(v) for v in m.group(2).split(b",")]
    if len(values) != int(m.group(1)) or values[-1] != 0 or 0 in values[:-1]:
        sys.exit("bad array: %d values for [%s]" % (len(values), m.group(1).decode()))
    text = bytes(values[:-1])
    print("ptx")
sys.stdout.write(text.decode())
