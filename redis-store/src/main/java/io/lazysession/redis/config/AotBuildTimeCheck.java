package io.lazysession.redis.config;

import javax.lang.model.element.Modifier;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.generate.GeneratedClass;
import org.springframework.aot.generate.GeneratedMethod;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * What Spring AOT fixes when an application is built: the conditions of the auto-configuration,
 * evaluated once on the build's settings. Those conditions read one lazysession property,
 * {@value EnabledCondition#PROPERTY} (whether the store's beans exist at all); every other setting
 * is read when the beans are created, at run time (the Spring Security hooks of the limit of
 * sessions per principal exist whatever the limit is, for that reason). This processor records the
 * build's value of {@value EnabledCondition#PROPERTY} in the generated initialization code, which
 * stops startup naming the property, both values and the rule when the application runs with a
 * value that contradicts it, instead of ignoring it as Spring AOT would.
 *
 * <p>Registered in {@code META-INF/spring/aot.factories}; runs at build time only (the generated
 * code calls {@link #check}). Stateless.
 */
final class AotBuildTimeCheck implements BeanFactoryInitializationAotProcessor {
  @Override
  public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
      ConfigurableListableBeanFactory beanFactory) {
    String name = ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME;
    if (!beanFactory.containsBean(name)) {
      return null;
    }
    String built = beanFactory.getBean(name, Environment.class)
        .getProperty(EnabledCondition.PROPERTY);
    boolean enabled = EnabledCondition.enabled(built);
    return (generationContext, code) -> {
      // In this package, so that it can call check; public, so that the initializer can call it.
      GeneratedClass type = generationContext.getGeneratedClasses().addForFeatureComponent(
          "LazySessionBuildTimeCheck", AotBuildTimeCheck.class,
          builder -> builder.addModifiers(Modifier.PUBLIC));
      GeneratedMethod method = type.getMethods().add("checkEnabled", builder -> builder
          .addJavadoc("$L was $L when the application was built.", EnabledCondition.PROPERTY,
              EnabledCondition.describe(built))
          .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
          .addParameter(Environment.class, "environment")
          .addStatement("$T.check(environment, $L, $S)", AotBuildTimeCheck.class, enabled,
              EnabledCondition.describe(built)));
      code.addInitializer(method.toMethodReference());
    };
  }

  /**
   * Run by the generated initialization code as the application starts.
   *
   * @param builtEnabled whether the build's settings turned lazysession on
   * @param built the build's value of {@value EnabledCondition#PROPERTY}, as the report says it
   * @throws LazySessionConfigurationException when the run-time value differs, or is invalid
   */
  static void check(Environment environment, boolean builtEnabled, String built) {
    String value = environment.getProperty(EnabledCondition.PROPERTY);
    if (EnabledCondition.enabled(value) == builtEnabled) {
      return;
    }
    String property = EnabledCondition.PROPERTY;
    throw LazySessionConfigurationException.invalidValue(property, EnabledCondition.describe(value),
        "differs from its value when the application was built for Spring AOT (" + built
            + "): Spring AOT decides at build time, from the build's settings, whether "
            + "lazysession stores the sessions, and ignores the value it runs with",
        "Build the application with " + property + "=" + !builtEnabled + " (set it where the "
            + "build runs Spring AOT, e.g. in application.properties), or run it with "
            + property + "=" + builtEnabled + (builtEnabled ? " or without it." : "."));
  }
}
