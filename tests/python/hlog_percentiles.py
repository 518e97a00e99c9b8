"""Every interval of the given HdrHistogram interval logs (.hlog) added into one histogram, read by an implementation
independent of jload's (Python's `hdrhistogram` package, module `hdrh`), and its figures printed as one JSON object in
microseconds: count, p50, p90, p99, p999, max.

Rank convention: jload (like HdrHistogram's Java and Rust implementations) takes the value at quantile q as the one
at rank ceil(q * count); this package rounds (int(q * count + 0.5)). To ask it for the same rank, each percentile is
given as rank * 100 / count, which it rounds back to exactly that rank. Values are the highest equivalent value of
their bucket in both, as is the max.

Usage: python3 hlog_percentiles.py FILE.hlog [FILE.hlog ...]
"""

import json
import math
import sys

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

# jload's histogram bounds: 1 µs to one hour, 3 significant digits.
LOWEST, HIGHEST, DIGITS = 1, 3_600_000_000, 3


def added_intervals(paths):
    total = HdrHistogram(LOWEST, HIGHEST, DIGITS)
    for path in paths:
        reader = HistogramLogReader(path, HdrHistogram(LOWEST, HIGHEST, DIGITS))
        while True:
            interval = reader.get_next_interval_histogram()
            if interval is None:
                break
            total.add(interval)
        reader.close()
    return total


def value_at_quantile(histogram, quantile):
    count = histogram.get_total_count()
    rank = max(math.ceil(quantile * count), 1)
    return histogram.get_value_at_percentile(rank * 100.0 / count)


def main(paths):
    histogram = added_intervals(paths)
    figures = {"count": histogram.get_total_count(), "max": histogram.get_max_value()}
    for name, quantile in [("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("p999", 0.999)]:
        figures[name] = value_at_quantile(histogram, quantile)
    print(json.dumps(figures))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
