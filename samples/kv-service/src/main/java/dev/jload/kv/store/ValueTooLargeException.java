package dev.jload.kv.store;

/** A value that the store cannot hold in one piece (the slab store's limit is one page); the HTTP layer answers 413. */
public final class ValueTooLargeException extends RuntimeException {
    public ValueTooLargeException(String message) {
        super(message, null, false, false);
    }
}
