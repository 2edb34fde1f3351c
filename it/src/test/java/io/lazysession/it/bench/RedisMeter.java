package io.lazysession.it.bench;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What Redis itself says about a store: its counters (INFO commandstats and INFO stats) before and
 * after a batch of requests, and the memory and bytes its keys take. Uses a connection of its own,
 * whose INFO calls are taken out of every figure. Not thread-safe: one measuring thread.
 */
final class RedisMeter implements AutoCloseable {
  /** Commands of the meter itself, never counted. */
  private static final List<String> OWN_COMMANDS = List.of("info");
  private static final int SCAN_PAGE = 500;
  private static final int MAX_KEYS = 1_000_000;

  private final RedisClient client;
  private final StatefulRedisConnection<byte[], byte[]> connection;
  private final RedisCommands<byte[], byte[]> redis;

  RedisMeter(RedisURI uri) {
    this.client = RedisClient.create(uri);
    this.connection = client.connect(ByteArrayCodec.INSTANCE);
    connection.setTimeout(Duration.ofSeconds(30));
    this.redis = connection.sync();
  }

  /** Redis counters at one moment. */
  record Counters(long commands, long netInput, long netOutput) {
    Counters minus(Counters earlier) {
      return new Counters(commands - earlier.commands, netInput - earlier.netInput,
          netOutput - earlier.netOutput);
    }
  }

  /** Reads the counters: commands processed (the meter's own excluded), bytes in and out of Redis. */
  Counters counters() {
    String commandStats = redis.info("commandstats");
    String stats = redis.info("stats");
    long commands = 0;
    for (String line : commandStats.split("\r?\n")) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      String command = line.substring("cmdstat_".length(), line.indexOf(':'));
      String base = command.contains("|") ? command.substring(0, command.indexOf('|')) : command;
      if (OWN_COMMANDS.contains(base)) {
        continue;
      }
      int calls = line.indexOf("calls=");
      int end = line.indexOf(',', calls);
      commands += Long.parseLong(line.substring(calls + "calls=".length(), end));
    }
    return new Counters(commands, stat(stats, "total_net_input_bytes"),
        stat(stats, "total_net_output_bytes"));
  }

  /**
   * What reading the counters costs in the counters themselves (the bytes of the INFO requests and
   * replies); subtract it from every delta. Measured as the delta across an empty batch.
   */
  Counters emptyBatch() {
    Counters before = counters();
    return counters().minus(before);
  }

  /**
   * Memory and bytes taken by the keys matching a pattern, and how many of those keys are hashes and
   * how many of the hashes Redis keeps in its compact encoding (listpack, ziplist before Redis 7).
   */
  record StoredBytes(long keys, long memoryUsage, long fieldBytes, long hashes,
      long compactHashes) {}

  /**
   * Sums, over every key matching {@code pattern}: MEMORY USAGE (with SAMPLES 0: exact), and the
   * bytes of its contents (hash field names and values, string values, set and sorted-set members);
   * except a namespace's shared dictionaries ({@code <ns>:dictionaries}), a constant of the
   * namespace that would weigh on a few hundred measured sessions as it never does on a real one.
   */
  StoredBytes stored(String pattern) {
    long keys = 0;
    long memory = 0;
    long contents = 0;
    long hashes = 0;
    long compact = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<byte[]> page = redis.scan(cursor,
          ScanArgs.Builder.matches(pattern).limit(SCAN_PAGE));
      for (byte[] key : page.getKeys()) {
        if (new String(key, java.nio.charset.StandardCharsets.UTF_8).endsWith(":dictionaries")) {
          continue; // once per namespace (16 KiB a dictionary), not per session: see Stores.SHARED
        }
        keys++;
        if ("hash".equals(redis.type(key))) {
          hashes++;
          String encoding = redis.objectEncoding(key);
          if ("listpack".equals(encoding) || "ziplist".equals(encoding)) {
            compact++;
          }
        }
        Long usage = redis.dispatch(CommandType.MEMORY, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
            new CommandArgs<>(ByteArrayCodec.INSTANCE).add("USAGE").addKey(key).add("SAMPLES")
                .add(0));
        memory += usage == null ? 0 : usage;
        contents += contentBytes(key);
      }
      if (keys > MAX_KEYS) {
        throw new IllegalStateException("more than " + MAX_KEYS + " keys match " + pattern);
      }
      cursor = page;
    } while (!cursor.isFinished());
    return new StoredBytes(keys, memory, contents, hashes, compact);
  }

  private long contentBytes(byte[] key) {
    String type = redis.type(key);
    long bytes = 0;
    switch (type) {
      case "hash" -> {
        for (Map.Entry<byte[], byte[]> field : redis.hgetall(key).entrySet()) {
          bytes += field.getKey().length + field.getValue().length;
        }
      }
      case "string" -> bytes += redis.strlen(key);
      case "set" -> {
        for (byte[] member : redis.smembers(key)) {
          bytes += member.length;
        }
      }
      case "zset" -> {
        for (ScoredValue<byte[]> member : redis.zrangeWithScores(key, 0, -1)) {
          bytes += member.getValue().length;
        }
      }
      default -> { }
    }
    return bytes;
  }

  /** Removes every key matching a pattern (UNLINK, page by page); returns how many. */
  long delete(String pattern) {
    long deleted = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    int pages = 0;
    do {
      KeyScanCursor<byte[]> page = redis.scan(cursor,
          ScanArgs.Builder.matches(pattern).limit(SCAN_PAGE));
      if (!page.getKeys().isEmpty()) {
        deleted += redis.unlink(page.getKeys().toArray(new byte[0][]));
      }
      cursor = page;
      if (++pages > MAX_KEYS / SCAN_PAGE * 4) {
        throw new IllegalStateException("keys matching " + pattern + " keep coming");
      }
    } while (!cursor.isFinished());
    return deleted;
  }

  /**
   * The setting that bounds the value length of a compactly encoded hash:
   * {@code hash-max-listpack-value} (Redis 7), or {@code hash-max-ziplist-value} before.
   */
  String hashValueSetting() {
    return config("hash-max-listpack-value") == null ? "hash-max-ziplist-value"
        : "hash-max-listpack-value";
  }

  /** CONFIG GET of one setting, or null when the server has no such setting. */
  @org.jspecify.annotations.Nullable String config(String name) {
    return redis.configGet(name).get(name);
  }

  /** CONFIG SET of one setting (on the benchmark's own Redis only). */
  void config(String name, String value) {
    redis.configSet(name, value);
  }

  /** A field of INFO server, e.g. redis_version. */
  String server(String field) {
    String server = redis.info("server");
    for (String line : server.split("\r?\n")) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1).trim();
      }
    }
    return "?";
  }

  private static long stat(String info, String field) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    throw new IllegalStateException("INFO has no " + field);
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
