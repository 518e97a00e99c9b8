package dev.jload.kv.config;

/**
 * An invalid {@code -Dkv.*} / {@code -Dje.*} setting. The message is one line that names the property, the value seen
 * and what is expected; {@link dev.jload.kv.KvService} prints it and exits with code 2.
 */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message, null, false, false);
    }
}
