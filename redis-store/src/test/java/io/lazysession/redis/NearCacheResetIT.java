package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lazysession.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A near-cache confirmation that arrives after one of the node's connections dropped is not
 * trusted: Lettuce may have re-sent the call, after a failover, to a primary where the cached
 * version names other contents. Here the call is held by {@code CLIENT PAUSE WRITE} (scripts count as
 * writes) while another connection of the node is killed.
 */
class NearCacheResetIT {
  static final String CLIENT_NAME = "lazysession-reset-test";
  static final String OTHER_LIBRARY = "reset_test_other";

  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  @Test
  void findById_connectionResetWhileTheConfirmationIsOut_loadsTheWholeHash() throws Exception {
    RedisURI named = RedisURI.builder(redis.uri()).withClientName(CLIENT_NAME).build();
    RedisClient client = RedisClient.create(named);
    RedisClient adminClient = RedisClient.create(redis.uri());
    StatefulRedisConnection<String, String> admin = adminClient.connect();
    // CLIENT PAUSE WRITE holds scripts but not the read-only function find.lua is on Redis 7: a
    // function named 'f' of another library keeps this node on EVALSHA, which the pause holds.
    boolean functionTaken = takeFindFunctionName(admin.sync());
    // Durability opens a second connection of the node's own: the one killed below.
    try (LazyRedisSessionRepository node = LazyRedisSessionRepository.builder(client)
        .serializer(TestRedis.serializer()).namespace(TestRedis.uniqueNamespace("reset"))
        .cleanupInterval(Duration.ZERO).durability(1, Duration.ofMillis(100)).build()) {
      LazySession session = node.createSession();
      session.setAttribute("currency", "EUR");
      try {
        node.save(session);
      } catch (SessionNotReplicatedException expected) {
        // no replica here; the session is stored and cached all the same
      }
      node.findById(session.getId()); // the cached copy is confirmed: warm
      long hitsBefore = node.metrics().nearCacheHits();
      long loadsBefore = node.metrics().loads();

      client(admin.sync(), "PAUSE", "10000", "WRITE");
      CompletableFuture<LazySession> loading =
          CompletableFuture.supplyAsync(() -> node.findById(session.getId()));
      await().atMost(Duration.ofSeconds(10)).until(() -> heldScript(admin.sync()) != null);
      String held = heldScript(admin.sync());
      java.util.Set<Long> killed = new java.util.HashSet<>();
      for (String line : nodeConnections(admin.sync())) {
        if (!line.equals(held)) {
          killed.add(id(line));
          admin.sync().clientKill(io.lettuce.core.KillArgs.Builder.id(id(line)));
        }
      }
      // Lettuce reports a dropped connection before it reconnects it: once a connection of the
      // node's that is neither the held one nor a killed one shows, the drop has been seen.
      await().atMost(Duration.ofSeconds(10)).until(() -> nodeConnections(admin.sync()).stream()
          .map(NearCacheResetIT::id).anyMatch(id -> id != id(held) && !killed.contains(id)));
      client(admin.sync(), "UNPAUSE");
      LazySession loaded = loading.get();

      assertThat(loaded.<String>getAttribute("currency")).isEqualTo("EUR");
      assertThat(node.metrics().nearCacheHits()).isEqualTo(hitsBefore);
      assertThat(node.metrics().loads()).isEqualTo(loadsBefore + 1);
    } finally {
      client(admin.sync(), "UNPAUSE");
      if (functionTaken) {
        admin.sync().dispatch(CommandType.FUNCTION, new StatusOutput<>(StringCodec.UTF8),
            new CommandArgs<>(StringCodec.UTF8).add("DELETE").add(OTHER_LIBRARY));
      }
      admin.close();
      adminClient.shutdown();
      client.shutdown();
    }
  }

  /** Registers another library's function 'f'; false where Redis has no functions (before 7). */
  static boolean takeFindFunctionName(RedisCommands<String, String> admin) {
    try {
      admin.functionLoad("#!lua name=" + OTHER_LIBRARY
          + "\nredis.register_function('f', function() return 0 end)", true);
      return true;
    } catch (io.lettuce.core.RedisCommandExecutionException e) {
      return false;
    }
  }

  /** CLIENT with {@code arguments} (PAUSE with a mode, UNPAUSE), which the typed API lacks. */
  static void client(RedisCommands<String, String> admin, String... arguments) {
    CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
    for (String argument : arguments) {
      args.add(argument);
    }
    admin.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), args);
  }

  static List<String> nodeConnections(RedisCommands<String, String> admin) {
    return Arrays.stream(admin.clientList().split("\n"))
        .filter(line -> line.contains(" name=" + CLIENT_NAME + " ")).toList();
  }

  /** The node's connection whose find script is held by the pause, if it is there yet. */
  static String heldScript(RedisCommands<String, String> admin) {
    return nodeConnections(admin).stream()
        .filter(line -> line.contains(" cmd=evalsha") && line.contains(" flags=b"))
        .findFirst().orElse(null);
  }

  static long id(String clientListLine) {
    for (String field : clientListLine.split(" ")) {
      if (field.startsWith("id=")) {
        return Long.parseLong(field.substring(3));
      }
    }
    throw new IllegalStateException("no id in " + clientListLine);
  }
}
