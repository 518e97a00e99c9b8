package dev.jload.kv.config;

import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * Typed, range-checked reads of {@code kv.*} properties. Every failure is a {@link ConfigException} whose one-line
 * message names the property, the value given and the accepted range.
 */
final class PropertyReader {
    private final Properties properties;

    PropertyReader(Properties properties) {
        this.properties = properties;
    }

    /** The raw value, trimmed, or null when the property is not set. */
    String raw(String name) {
        String value = properties.getProperty(name);
        return value == null ? null : value.trim();
    }

    String string(String name, String fallback) {
        String value = raw(name);
        if (value != null && value.isEmpty()) {
            throw new ConfigException(name + " is empty: give a value or leave the property out");
        }
        return value == null ? fallback : value;
    }

    boolean bool(String name, boolean fallback) {
        String value = raw(name);
        if (value == null) {
            return fallback;
        }
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ConfigException(name + "=" + value + " is not a boolean: expected true or false");
        };
    }

    long integer(String name, long fallback, long min, long max) {
        String value = raw(name);
        if (value == null) {
            return fallback;
        }
        try {
            return checkRange(name, value, Long.parseLong(value), min, max, Long::toString);
        } catch (NumberFormatException e) {
            throw new ConfigException(name + "=" + value + " is not an integer: expected " + min + ".." + max);
        }
    }

    long bytes(String name, long fallback, long min, long max) {
        String value = raw(name);
        if (value == null) {
            return fallback;
        }
        return checkRange(name, value, Sizes.parseBytes(name, value), min, max, Sizes::formatBytes);
    }

    long millis(String name, long fallback, long max) {
        String value = raw(name);
        if (value == null) {
            return fallback;
        }
        long millis = Sizes.parseMillis(name, value);
        if (millis > max) {
            throw new ConfigException(name + "=" + value + " is too long: at most " + Sizes.formatMillis(max));
        }
        return millis;
    }

    double decimal(String name, double fallback, double minExclusive, double maxInclusive) {
        String value = raw(name);
        if (value == null) {
            return fallback;
        }
        try {
            double number = Double.parseDouble(value);
            if (!(number > minExclusive && number <= maxInclusive)) {
                throw new ConfigException(name + "=" + value + " is out of range: expected a number above "
                        + minExclusive + " and at most " + maxInclusive);
            }
            return number;
        } catch (NumberFormatException e) {
            throw new ConfigException(name + "=" + value + " is not a number: expected e.g. 1.25 or 2");
        }
    }

    /** Rejects {@code kv.*} names that nobody reads, so a typo in a sweep does not silently run the default. */
    void rejectUnknown(String prefix, Set<String> known) {
        Set<String> unknown = new TreeSet<>();
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith(prefix) && !known.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw new ConfigException("unknown property " + String.join(", ", unknown) + ": known " + prefix
                    + "* properties are " + String.join(", ", new TreeSet<>(known)));
        }
    }

    private static long checkRange(String name, String value, long number, long min, long max,
                                   LongFunction<String> format) {
        if (number < min || number > max) {
            throw new ConfigException(name + "=" + value + " is out of range: expected " + format.apply(min) + ".."
                    + format.apply(max));
        }
        return number;
    }
}
