package dev.jload.kv.config;

import java.util.Locale;

/** The three stores of the seeds: Caffeine on the heap (001), a slab allocator off the heap (002), Berkeley DB JE (000). */
public enum StoreKind {
    HEAP, OFFHEAP, BDB;

    public String propertyValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    static StoreKind parse(String property, String text) {
        for (StoreKind kind : values()) {
            if (kind.propertyValue().equals(text.toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new ConfigException(property + "=" + text + " is not a store: expected heap, offheap or bdb");
    }
}
