package io.lazysession.redis.config;

import io.lazysession.redis.LazyReactiveRedisSessionRepository;
import io.lazysession.redis.LazyRedisSessionRepository;
import io.lazysession.serializer.AttributeSerializer;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.session.config.annotation.web.server.SpringWebSessionConfiguration;

/**
 * What {@link EnableLazyWebSession} imports: the repository (built by {@link RepositoryFactory} from
 * the annotation's attributes bound as {@code lazysession.*}, as {@link LazyHttpSessionConfiguration}
 * does) and its reactive face, plus Spring Session's {@code webSessionManager}. Public only because
 * Spring imports it; not meant to be used directly.
 *
 * <p>Internal: public for lazysession's own packages (the annotation imports it); not part of the
 * supported API (docs/api.md). Applications use {@link EnableLazyWebSession}.
 */
@Configuration(proxyBeanMethods = false)
public class LazyWebSessionConfiguration extends SpringWebSessionConfiguration
    implements ImportAware, BeanClassLoaderAware, EnvironmentAware, BeanFactoryAware,
    DisposableBean {
  private static final String ANNOTATION = "@EnableLazyWebSession";

  private final AnnotationSettings settings = new AnnotationSettings(ANNOTATION);
  private @Nullable ClassLoader classLoader;
  private @Nullable Environment environment;
  private @Nullable BeanFactory beanFactory;

  /**
   * The reactive face of {@code repository}; a setting it cannot honour yet is reported as a
   * configuration error naming the property.
   */
  static LazyReactiveRedisSessionRepository reactive(LazyRedisSessionRepository repository) {
    try {
      return LazyReactiveRedisSessionRepository.of(repository);
    } catch (IllegalArgumentException e) {
      throw new LazySessionConfigurationException("lazysession.*",
          "a reactive (WebFlux) application uses a setting the reactive repository does not "
              + "support yet: " + e.getMessage(),
          "Remove that setting for this application.", e);
    }
  }

  @Override
  public void setImportMetadata(AnnotationMetadata metadata) {
    Map<String, @Nullable Object> attributes =
        metadata.getAnnotationAttributes(EnableLazyWebSession.class.getName());
    if (attributes != null) {
      settings.read(attributes, metadata.getClassName());
    }
  }

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanClassLoader(ClassLoader classLoader) {
    this.classLoader = classLoader;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  /** The annotation's settings, bound as {@code lazysession.*}; errors name the attribute too. */
  LazySessionProperties properties() {
    return settings.properties(environment);
  }

  @Bean(destroyMethod = "close")
  public LazyRedisSessionRepository lazySessionRepository(
      ObjectProvider<AttributeSerializer> serializers, ApplicationEventPublisher events,
      ObjectProvider<LazySessionRepositoryCustomizer> customizers) {
    return settings.repository(environment, beanFactory, classLoader, serializers, events,
        customizers);
  }

  @Bean
  public LazyReactiveRedisSessionRepository reactiveSessionRepository(
      LazyRedisSessionRepository lazySessionRepository) {
    return reactive(lazySessionRepository);
  }

  @Override
  public void destroy() {
    settings.close();
  }
}
