#!/usr/bin/env python3
"""Makes the land outline of `replay report`'s map (Sources/Report/LandOutline.swift).

Source: Natural Earth 1:110m Admin 0 countries (public domain), as bundled in the geopandas
0.14.4 wheel (geopandas/datasets/naturalearth_lowres/*). Needs `pip install pyshp`.

    pip download geopandas==0.14.4 --no-deps -d /tmp/ne
    (cd /tmp/ne && unzip -o -j geopandas-0.14.4-py3-none-any.whl 'geopandas/datasets/naturalearth_lowres/*')
    python3 docs/report/land-outline.py /tmp/ne/naturalearth_lowres.shp > /tmp/ne/land.txt

Each ring is simplified with Douglas-Peucker at 0.4 degrees, rounded to 0.1 degree, and kept
when 4 points or more remain; one ring a line, points `longitude,latitude`.
"""
import math
import sys

import shapefile


def simplify(points, tolerance):
    if len(points) < 3:
        return points
    a, b = points[0], points[-1]
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    best, index = 0.0, 0
    for i in range(1, len(points) - 1):
        p = points[i]
        if length > 0:
            d = abs(dy * p[0] - dx * p[1] + b[0] * a[1] - b[1] * a[0]) / length
        else:
            d = math.hypot(p[0] - a[0], p[1] - a[1])
        if d > best:
            best, index = d, i
    if best > tolerance:
        return simplify(points[: index + 1], tolerance)[:-1] + simplify(points[index:], tolerance)
    return [a, b]


for shape in shapefile.Reader(sys.argv[1]).shapes():
    parts = list(shape.parts) + [len(shape.points)]
    for start, end in zip(parts, parts[1:]):
        ring = [(round(x, 1), round(y, 1)) for x, y in simplify(shape.points[start:end], 0.4)]
        kept = [p for i, p in enumerate(ring) if i == 0 or p != ring[i - 1]]
        if len(kept) >= 4:
            print(" ".join(f"{x:g},{y:g}" for x, y in kept))
