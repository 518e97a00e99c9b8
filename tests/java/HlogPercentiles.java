import java.io.File;
import java.io.FileNotFoundException;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.HistogramLogReader;

/**
 * Every interval of the given HdrHistogram interval logs (.hlog) added into one histogram by the reference
 * implementation — Gil Tene's Java HdrHistogram (Debian's libhdrhistogram-java), independent of jload's Rust code — and
 * its figures printed as one JSON object in microseconds: count, p50, p90, p99, p999, max.
 *
 * <p>Rank convention, as jload's (and HdrHistogram's Rust crate): the value at quantile q is the one at rank
 * max(1, ceil(q * count)), reported as the highest value equivalent to it, as is the max. The rank is found here by
 * walking the recorded values, not by the library's own percentile method.
 *
 * <p>Usage: java -cp /usr/share/java/hdrhistogram.jar tests/java/HlogPercentiles.java FILE.hlog [FILE.hlog ...]
 */
public class HlogPercentiles {
    public static void main(String[] args) throws FileNotFoundException {
        if (args.length == 0) {
            System.err.println("usage: HlogPercentiles FILE.hlog [FILE.hlog ...]");
            System.exit(2);
        }
        // jload's histogram bounds: 1 µs to one hour, 3 significant digits.
        Histogram total = new Histogram(1, 3_600_000_000L, 3);
        for (String path : args) {
            HistogramLogReader reader = new HistogramLogReader(new File(path));
            EncodableHistogram interval;
            while ((interval = reader.nextIntervalHistogram()) != null) {
                total.add((Histogram) interval);
            }
            reader.close();
        }
        System.out.printf("{\"count\": %d, \"p50\": %d, \"p90\": %d, \"p99\": %d, \"p999\": %d, \"max\": %d}%n",
                total.getTotalCount(), atQuantile(total, 0.50), atQuantile(total, 0.90), atQuantile(total, 0.99),
                atQuantile(total, 0.999), total.getMaxValue());
    }

    private static long atQuantile(Histogram histogram, double quantile) {
        long rank = Math.max(1, (long) Math.ceil(quantile * histogram.getTotalCount()));
        long seen = 0;
        for (HistogramIterationValue value : histogram.recordedValues()) {
            seen += value.getCountAtValueIteratedTo();
            if (seen >= rank) {
                return histogram.highestEquivalentValue(value.getValueIteratedTo());
            }
        }
        return 0;
    }
}
