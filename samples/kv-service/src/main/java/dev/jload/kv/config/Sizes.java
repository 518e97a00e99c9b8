package dev.jload.kv.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the human units used by the {@code kv.*} properties: byte sizes ({@code 512k}, {@code 800m},
 * {@code 1g}, plain bytes) and durations ({@code 3s}, {@code 500ms}, {@code 2m}, {@code 1h}, plain seconds).
 */
public final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})([kmgt]?)b?");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h)?");

    private Sizes() {
    }

    /** Bytes from {@code 123}, {@code 512k}, {@code 800m}, {@code 1g}, {@code 2t} (binary units, optional trailing b). */
    public static long parseBytes(String property, String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new ConfigException(property + "=" + text + " is not a size: expected bytes like 1048576, 512k, 800m or 1g");
        }
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        try {
            long number = Long.parseLong(m.group(1));
            if (number > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return number << shift;
        } catch (NumberFormatException e) {
            throw new ConfigException(property + "=" + text + " is too large for a byte size");
        }
    }

    /** Milliseconds from {@code 3s}, {@code 500ms}, {@code 2m}, {@code 1h}; a plain number means seconds. */
    public static long parseMillis(String property, String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new ConfigException(property + "=" + text + " is not a duration: expected 0, 3s, 500ms, 2m or 1h");
        }
        long number = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> number;
            case "s" -> number * 1_000L;
            case "m" -> number * 60_000L;
            default -> number * 3_600_000L;
        };
    }

    /** {@code 1048576} → {@code 1m}, {@code 1536} → {@code 1536}: the shortest exact form in the input syntax. */
    public static String formatBytes(long bytes) {
        String[] units = {"t", "g", "m", "k"};
        int[] shifts = {40, 30, 20, 10};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << shifts[i];
            if (bytes != 0 && bytes % unit == 0) {
                return (bytes >> shifts[i]) + units[i];
            }
        }
        return Long.toString(bytes);
    }

    /** {@code 3000} → {@code 3s}, {@code 1500} → {@code 1500ms}, {@code 0} → {@code 0}. */
    public static String formatMillis(long millis) {
        if (millis == 0) {
            return "0";
        }
        return millis % 1000 == 0 ? (millis / 1000) + "s" : millis + "ms";
    }
}
