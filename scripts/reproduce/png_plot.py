"""Learning curves as PNG with the standard library only (no matplotlib on the project's machines):
mean curves with translucent 95% confidence bands, one panel per env. Used by the reproduction
scripts."""
import math
import struct
import zlib
from pathlib import Path


def mean_ci(curves):
    n = len(curves)
    m = [sum(c[i] for c in curves) / n for i in range(len(curves[0]))]
    if n < 2:
        return m, [0.0] * len(m)
    sd = [math.sqrt(sum((c[i] - m[i]) ** 2 for c in curves) / (n - 1)) for i in range(len(m))]
    return m, [1.96 * s / math.sqrt(n) for s in sd]




def write_png(path, w, h, px):
    raw = b"".join(b"\x00" + bytes(px[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    Path(path).write_bytes(png)


def plot(path, panels, colors):
    """panels: {title: {series: (mean, ci, n)}}, one panel per title, side by side; colors: {series: (r, g, b)}."""
    pw, ph, pad = 480, 320, 40
    w, h = pw * len(panels), ph
    px = bytearray([255] * (w * h * 3))

    def blend(x, y, c, a):
        if 0 <= x < w and 0 <= y < h:
            i = (y * w + x) * 3
            for k in range(3):
                px[i + k] = int(px[i + k] * (1 - a) + c[k] * a)

    for p, (env, series) in enumerate(panels.items()):
        x0 = p * pw
        allv = [v for m, ci, _ in series.values() for v in (m + [a + b for a, b in zip(m, ci)] + [a - b for a, b in zip(m, ci)])]
        lo, hi = min(allv), max(allv)
        hi = hi if hi > lo else lo + 1
        n = max(len(m) for m, _, _ in series.values())
        sx = lambda i: x0 + pad + int((pw - pad - 10) * (i + 1) / n)
        sy = lambda v: 10 + int((ph - pad - 10) * (1 - (v - lo) / (hi - lo)))
        for x in range(x0 + pad, x0 + pw - 10):  # frame
            blend(x, 10, (0, 0, 0), 1)
            blend(x, ph - pad, (0, 0, 0), 1)
        for y in range(10, ph - pad):
            blend(x0 + pad, y, (0, 0, 0), 1)
            blend(x0 + pw - 10, y, (0, 0, 0), 1)
        for algo, (m, ci, _) in series.items():
            c = colors[algo]
            prev = None
            for i in range(len(m) - 1):
                for x in range(sx(i), sx(i + 1)):
                    t = (x - sx(i)) / max(1, sx(i + 1) - sx(i))
                    mv = m[i] + t * (m[i + 1] - m[i])
                    cv = ci[i] + t * (ci[i + 1] - ci[i])
                    for y in range(sy(mv + cv), sy(mv - cv) + 1):
                        blend(x, y, c, 0.12)
                    y = sy(mv)
                    for yy in range(min(y, prev if prev is not None else y), max(y, prev if prev is not None else y) + 1):
                        blend(x, yy, c, 1)
                        blend(x, yy + 1, c, 1)
                    prev = y
    write_png(path, w, h, px)
