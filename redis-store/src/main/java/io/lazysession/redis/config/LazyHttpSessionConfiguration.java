package io.lazysession.redis.config;

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
import org.springframework.session.config.annotation.web.http.SpringHttpSessionConfiguration;

/**
 * What {@link EnableLazyHttpSession} imports: the repository plus Spring Session's servlet filter.
 * The annotation's attributes are turned into {@code lazysession.*} values and bound into
 * {@link LazySessionProperties}, exactly as the Boot properties are; the repository is then built by
 * the same {@link RepositoryFactory}. Public only because Spring imports it; not meant to be used
 * directly. Not thread-safe: Spring configures it once, on the thread that refreshes the context.
 *
 * <p>Internal: public for lazysession's own packages (the annotation imports it); not part of the
 * supported API (docs/api.md). Applications use {@link EnableLazyHttpSession}.
 */
@Configuration(proxyBeanMethods = false)
public class LazyHttpSessionConfiguration extends SpringHttpSessionConfiguration
    implements ImportAware, BeanClassLoaderAware, EnvironmentAware, BeanFactoryAware,
    DisposableBean {
  private static final String ANNOTATION = "@EnableLazyHttpSession";

  private final AnnotationSettings settings = new AnnotationSettings(ANNOTATION);
  private @Nullable ClassLoader classLoader;
  private @Nullable Environment environment;
  private @Nullable BeanFactory beanFactory;

  @Override
  public void setImportMetadata(AnnotationMetadata metadata) {
    Map<String, @Nullable Object> attributes =
        metadata.getAnnotationAttributes(EnableLazyHttpSession.class.getName());
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
  public LazyRedisSessionRepository sessionRepository(
      ObjectProvider<AttributeSerializer> serializers, ApplicationEventPublisher events,
      ObjectProvider<LazySessionRepositoryCustomizer> customizers) {
    return settings.repository(environment, beanFactory, classLoader, serializers, events,
        customizers);
  }

  @Override
  public void destroy() {
    settings.close();
  }
}
