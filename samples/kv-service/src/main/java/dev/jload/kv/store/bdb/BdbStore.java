package dev.jload.kv.store.bdb;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.EnvironmentLockedException;
import com.sleepycat.je.EnvironmentStats;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.StatsConfig;
import dev.jload.kv.config.ConfigException;
import dev.jload.kv.config.KvConfig.BdbSettings;
import dev.jload.kv.store.AccessCounters;
import dev.jload.kv.store.Key;
import dev.jload.kv.store.KvStore;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Seed 000's store: Berkeley DB Java Edition, {@code kv.shards} environments under {@code kv.dir} (shard-0, shard-1,
 * …), a key going to shard hash(key) mod shards. Every {@code je.*} system property configures each environment, so
 * {@code -Dje.maxMemoryPercent} (per environment, as in seed 000's formula) and {@code -Dje.maxOffHeapMemory} work.
 *
 * <p>Databases are non-transactional and not deferred-write: each put is appended to JE's log buffer and written out
 * by JE without an fsync per operation; {@link #close()} checkpoints, so data survives a clean restart (and a killed
 * JVM loses at most what the OS had not been handed yet).
 */
public final class BdbStore implements KvStore {
    private static final String DATABASE = "kv";

    private final AccessCounters counters = new AccessCounters();
    private final List<Environment> environments = new ArrayList<>();
    private final List<Database> databases = new ArrayList<>();

    public BdbStore(BdbSettings settings) {
        EnvironmentConfig environmentConfig = environmentConfig(settings);
        try {
            for (int shard = 0; shard < settings.shards(); shard++) {
                Path home = settings.dir().resolve("shard-" + shard);
                Files.createDirectories(home);
                Environment environment = new Environment(home.toFile(), environmentConfig);
                environments.add(environment);
                DatabaseConfig databaseConfig = new DatabaseConfig().setAllowCreate(true).setTransactional(false);
                databases.add(environment.openDatabase(null, DATABASE, databaseConfig));
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot create kv.dir=" + settings.dir() + ": " + e.getMessage(), e);
        } catch (EnvironmentLockedException e) {
            close();
            throw new IllegalStateException("kv.dir=" + settings.dir() + " is in use by another process: stop it or"
                    + " choose another kv.dir", e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private static EnvironmentConfig environmentConfig(BdbSettings settings) {
        EnvironmentConfig config;
        try {
            config = new EnvironmentConfig(settings.je());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("a je.* property was rejected by Berkeley DB JE: " + firstLine(e.getMessage()));
        }
        return config.setAllowCreate(true).setTransactional(false);
    }

    private static String firstLine(String message) {
        return message == null ? "(no detail)" : message.lines().findFirst().orElse("").trim();
    }

    private Database shardOf(Key key) {
        return databases.get(Math.floorMod(key.hashCode(), databases.size()));
    }

    @Override
    public byte[] get(Key key) {
        DatabaseEntry value = new DatabaseEntry();
        OperationStatus status = shardOf(key).get(null, new DatabaseEntry(key.bytes()), value, LockMode.DEFAULT);
        return counters.lookup(status == OperationStatus.SUCCESS ? value.getData() : null);
    }

    @Override
    public void put(Key key, byte[] src, int offset, int length) {
        shardOf(key).put(null, new DatabaseEntry(key.bytes()), new DatabaseEntry(src, offset, length));
    }

    @Override
    public boolean delete(Key key) {
        return shardOf(key).delete(null, new DatabaseEntry(key.bytes())) == OperationStatus.SUCCESS;
    }

    /**
     * Summary: entries = sum of {@code Database.count()} (walks the B-tree: cheap for thousands of records, a fraction of
     * a second for millions); bytesUsed = JE log bytes on disk; capacity = -1 (bounded by disk, not by the store);
     * evictions = 0 (JE never drops data; cache evictions are under "je"). Then "je": JE cache and off-heap cache
     * statistics summed over shards, and "shards": the main figures per shard.
     */
    @Override
    public void writeStats(ObjectNode node) {
        JeStatsSum sum = new JeStatsSum();
        ArrayNode shards = node.arrayNode();
        long entries = 0;
        StatsConfig fast = new StatsConfig().setFast(true);
        for (int shard = 0; shard < environments.size(); shard++) {
            Environment environment = environments.get(shard);
            EnvironmentStats stats = environment.getStats(fast);
            long records = databases.get(shard).count();
            entries += records;
            sum.add(stats, environment.getConfig().getCacheSize());
            ObjectNode row = shards.addObject();
            row.put("shard", shard);
            row.put("home", environment.getHome().getPath());
            row.put("entries", records);
            JeStatsSum.writeShard(row, stats);
        }
        counters.writeSummary(node, "bdb", entries, sum.totalLogSize(), -1);
        node.set("je", sum.toJson(node.objectNode()));
        node.set("shards", shards);
    }

    @Override
    public boolean blocking() {
        return true;
    }

    /** Closes databases, then environments (which checkpoints them). Safe to call on a partly opened store. */
    @Override
    public void close() {
        RuntimeException failure = closeAll(databases, null);
        failure = closeAll(environments, failure);
        if (failure != null) {
            throw failure;
        }
    }

    /** Closes every handle even if some fail; returns the first failure seen (including {@code earlier}). */
    private static RuntimeException closeAll(List<? extends Closeable> handles, RuntimeException earlier) {
        RuntimeException failure = earlier;
        for (Closeable handle : handles) {
            try {
                handle.close();
            } catch (IOException e) {
                failure = failure != null ? failure : new UncheckedIOException(e);
            } catch (RuntimeException e) {
                failure = failure != null ? failure : e;
            }
        }
        handles.clear();
        return failure;
    }
}
