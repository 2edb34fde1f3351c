package io.lazysession.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import redis.embedded.RedisServer;

/**
 * Gives the sample a Redis when none is configured: if no {@code spring.data.redis.*} connection
 * property is set, it starts the Redis binary of the embedded-redis jar on
 * {@code sample.embedded-redis.port} (default 6390) — or, when a Redis already answers there (another
 * instance of the sample started it), uses that one — and points {@code spring.data.redis.url} at it.
 *
 * <p>The instance that started the embedded Redis stops it when it exits; run a real Redis (and set
 * {@code spring.data.redis.url}) when instances should come and go independently.
 */
final class EmbeddedRedisStarter implements ApplicationListener<ApplicationEvent> {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisStarter.class);
  private static final String[] CONNECTION_PROPERTIES = {
      "spring.data.redis.url", "spring.data.redis.host", "spring.data.redis.port",
      "spring.data.redis.sentinel.master", "spring.data.redis.cluster.nodes"};

  private @Nullable RedisServer started;

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
      configure(prepared.getEnvironment());
    } else if (event instanceof ContextClosedEvent || event instanceof ApplicationFailedEvent) {
      stop();
    }
  }

  private void configure(ConfigurableEnvironment environment) {
    for (String property : CONNECTION_PROPERTIES) {
      if (environment.containsProperty(property)) {
        log.info("Using the Redis configured by {}", property);
        return;
      }
    }
    int port = environment.getProperty("sample.embedded-redis.port", Integer.class, 6390);
    String url = "redis://127.0.0.1:" + port;
    if (answersPing(port)) {
      log.info("No spring.data.redis.* set: using the embedded Redis another instance started on "
          + "127.0.0.1:{}", port);
    } else {
      start(port);
      log.info("No spring.data.redis.* set: started an embedded Redis on 127.0.0.1:{} "
          + "(it stops with this instance)", port);
    }
    environment.getPropertySources().addFirst(
        new MapPropertySource("embeddedRedis", Map.of("spring.data.redis.url", url)));
  }

  private synchronized void start(int port) {
    try {
      RedisServer server = RedisServer.newRedisServer()
          .port(port)
          .bind("127.0.0.1")
          .setting("save \"\"")
          .setting("appendonly no")
          .build();
      server.start();
      started = server;
      Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "embedded-redis-stop"));
    } catch (IOException e) {
      throw new IllegalStateException("Could not start an embedded Redis on 127.0.0.1:" + port
          + "; set spring.data.redis.url to a running Redis or sample.embedded-redis.port to a free "
          + "port", e);
    }
  }

  private synchronized void stop() {
    RedisServer server = started;
    started = null;
    if (server != null) {
      try {
        server.stop();
      } catch (IOException e) {
        log.warn("Could not stop the embedded Redis", e);
      }
    }
  }

  private static boolean answersPing(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 300);
      socket.setSoTimeout(1000);
      OutputStream out = socket.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] reply = new byte[5];
      int read = in.read(reply);
      return read == 5 && new String(reply, StandardCharsets.US_ASCII).equals("+PONG");
    } catch (IOException e) {
      return false;
    }
  }
}
