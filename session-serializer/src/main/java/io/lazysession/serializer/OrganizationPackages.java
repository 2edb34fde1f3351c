package io.lazysession.serializer;

import java.util.Set;

/**
 * The organisation prefix of an application package: the package an organisation's own libraries
 * share with its applications, so that a session class from a shared library
 * ({@code org.acme.shared.Money}) decodes in an application in {@code org.acme.shop}.
 *
 * <p>The rule: package names are reversed domain names, so the first two segments name the
 * organisation ({@code org.acme}); three when the second is a shared domain that many unrelated
 * owners sit under ({@code io.github.alice}, {@code uk.co.acme}). The prefix is refused, and the
 * package itself is kept, when it would name a well-known third-party or platform root
 * ({@code org.springframework}, {@code org.apache}, {@code com.fasterxml}, {@code java},
 * {@code jakarta}...): an application living in such a namespace must not open all of it. A
 * package of one or two segments is its own prefix. Stateless.
 */
final class OrganizationPackages {
  /** Second segments under which unrelated owners publish: the prefix then takes three segments. */
  private static final Set<String> SHARED_SECOND_LEVEL = Set.of(
      "github", "gitlab", "bitbucket", "sourceforge", "googlecode", "gitee", "codeberg", "herokuapp",
      "co", "com", "org", "net", "ac", "gov", "edu", "ne", "or", "go", "gob", "ltd", "plc");

  /** Roots never widened to: platforms and widely used third-party libraries. */
  private static final Set<String> THIRD_PARTY_ROOTS = Set.of(
      "java", "javax", "jakarta", "jdk", "sun", "com.sun", "com.oracle", "kotlin", "kotlinx",
      "scala", "groovy", "org.springframework", "org.apache", "com.fasterxml", "com.google",
      "io.netty", "io.micrometer", "io.lettuce", "io.projectreactor", "reactor", "org.hibernate",
      "org.eclipse", "org.jboss", "org.glassfish", "org.slf4j", "ch.qos", "org.yaml",
      "com.esotericsoftware", "io.lazysession", "org.aspectj", "net.bytebuddy", "org.objenesis",
      "com.zaxxer", "org.postgresql", "com.mysql", "org.mariadb", "org.h2", "org.hsqldb",
      "org.thymeleaf", "org.junit", "org.mockito", "org.assertj", "io.swagger", "com.amazonaws",
      "software.amazon", "com.microsoft", "com.azure", "org.keycloak", "org.apereo",
      "org.bouncycastle", "org.codehaus", "org.jetbrains", "org.opensaml", "net.shibboleth",
      "io.opentelemetry", "org.json", "com.nimbusds", "io.jsonwebtoken", "org.jooq", "org.quartz",
      "org.flywaydb", "org.liquibase", "org.testcontainers", "org.redisson", "redis.clients",
      "io.vavr", "org.reactivestreams", "org.webjars", "org.owasp", "io.undertow", "org.xml",
      "org.w3c");

  private OrganizationPackages() {}

  /** The organisation prefix of {@code packageName}, or the package itself (see the class doc). */
  static String of(String packageName) {
    String[] segments = packageName.split("\\.");
    int length = segments.length >= 2 && SHARED_SECOND_LEVEL.contains(segments[1]) ? 3 : 2;
    if (segments.length <= length) {
      return packageName;
    }
    String prefix = String.join(".", java.util.Arrays.copyOf(segments, length));
    for (int i = 1; i <= length; i++) {
      if (THIRD_PARTY_ROOTS.contains(String.join(".", java.util.Arrays.copyOf(segments, i)))) {
        return packageName;
      }
    }
    return prefix;
  }
}
