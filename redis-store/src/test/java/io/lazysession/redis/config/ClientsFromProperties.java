package io.lazysession.redis.config;

import io.lettuce.core.AbstractRedisClient;
import java.util.Map;
import org.springframework.mock.env.MockEnvironment;

/**
 * Test access to the clients the Spring configurations build from {@code spring.data.redis.*}, so
 * that the topology tests run on exactly the options (fail fast, topology refresh) users get.
 */
public final class ClientsFromProperties {
  private ClientsFromProperties() {}

  /** A {@code RedisClient} or {@code RedisClusterClient}, as the auto-configuration would build. */
  public static AbstractRedisClient create(Map<String, String> properties) {
    MockEnvironment environment = new MockEnvironment();
    properties.forEach(environment::setProperty);
    return RedisConnectionSettings.bind(environment).createClient();
  }
}
