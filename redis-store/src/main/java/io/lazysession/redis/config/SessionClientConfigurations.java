package io.lazysession.redis.config;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.resource.ClientResources;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;

/**
 * The ways the auto-configuration builds the session store's own client, imported in order by
 * {@link LazySessionAutoConfiguration}: the first that applies wins, and none applies when the
 * application defines a bean named {@value LazySessionAutoConfiguration#CLIENT_BEAN_NAME}.
 */
final class SessionClientConfigurations {
  private SessionClientConfigurations() {}

  /** The store's client from Boot's connection details, when spring-boot-data-redis is present. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({DataRedisConnectionDetails.class, LettuceClientConfiguration.class})
  @ConditionalOnBean(DataRedisConnectionDetails.class)
  @ConditionalOnMissingBean(name = LazySessionAutoConfiguration.CLIENT_BEAN_NAME)
  static class FromConnectionDetails {
    @Bean
    RedisTarget lazySessionRedisTarget(DataRedisConnectionDetails details,
        ObjectProvider<DataRedisProperties> properties) {
      return ConnectionDetailsClients.target(details, properties.getIfAvailable());
    }

    @Bean(name = LazySessionAutoConfiguration.CLIENT_BEAN_NAME, destroyMethod = "shutdown")
    AbstractRedisClient lazySessionRedisClient(DataRedisConnectionDetails details,
        ObjectProvider<DataRedisProperties> properties, ObjectProvider<ClientResources> resources,
        ObjectProvider<LettuceClientOptionsBuilderCustomizer> optionsCustomizers,
        ObjectProvider<LettuceClientConfigurationBuilderCustomizer> configurationCustomizers) {
      return ConnectionDetailsClients.create(details, properties.getIfAvailable(),
          resources.getIfUnique(), optionsCustomizers.orderedStream().toList(),
          configurationCustomizers.orderedStream().toList());
    }
  }

  /** The store's client from {@code spring.data.redis.*}, without spring-boot-data-redis. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(name = LazySessionAutoConfiguration.CLIENT_BEAN_NAME)
  static class FromProperties {
    @Bean
    RedisTarget lazySessionRedisTarget(Environment environment) {
      return RedisConnectionSettings.bind(environment).target();
    }

    @Bean(name = LazySessionAutoConfiguration.CLIENT_BEAN_NAME, destroyMethod = "shutdown")
    AbstractRedisClient lazySessionRedisClient(Environment environment) {
      return RedisConnectionSettings.bind(environment).createClient();
    }
  }
}
