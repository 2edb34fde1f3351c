package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.redis.config.LazySessionProperties;
import org.acme.shared.Booking;
import org.acme.shared.Counter;
import org.acme.shared.Money;
import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.testing.RedisServerExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.core.OAuth2Error;

/**
 * Issue 21's first-week flows on two nodes and a real Redis, with the serializer the Spring Boot
 * settings describe by default for an application in {@code org.acme.shop}: a shared
 * library's class, a failed OAuth 2.0 login's exception (stored with the JDK codec, counted), and
 * a value that is not Serializable (refused at setAttribute, naming the attribute).
 */
class CompatibilityIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  /** The serializer Spring Boot builds with these settings for an application in org.acme.shop. */
  static io.lazysession.serializer.AttributeSerializer bootDefault(Map<String, String> settings) {
    LazySessionProperties properties = LazySessionProperties.bind(
        new Binder(new MapConfigurationPropertySource(settings)));
    return properties.serializer(List.of("org.acme.shop"),
        CompatibilityIT.class.getClassLoader());
  }

  @RegisterExtension
  static final TwoNodes nodes = TwoNodes.on(redis, b -> b.serializer(bootDefault(Map.of())));

  @Test
  void sharedLibraryClass_defaultSettings_storedOnOneNodeAndReadOnTheOther() {
    LazySession session = nodes.a().createSession();
    session.setAttribute("price", new Money(1999, "EUR"));
    nodes.a().save(session);

    assertThat((Money) nodes.b().findById(session.getId()).getAttribute("price"))
        .isEqualTo(new Money(1999, "EUR"));
  }

  @Test
  void sharedLibraryClass_organizationPackagesOff_refusedNamingThePackageAndProperty() {
    nodes.configure(b -> b.serializer(bootDefault(
        Map.of("lazysession.allow-organization-packages", "false"))));
    LazySession session = nodes.a().createSession();
    session.setAttribute("price", new Money(1999, "EUR"));

    assertThatThrownBy(() -> nodes.a().save(session))
        .hasMessageContaining("attribute 'price'")
        .hasMessageContaining("lazysession.allowed-packages=org.acme.shared")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("if it is yours"));
  }

  /**
   * A {@code java.util.Date} field loaded from a database holds a {@code java.sql.Timestamp}
   * (Hibernate, JDBC's {@code getTimestamp}, Spring's {@code JdbcTemplate} row maps): a JDK value
   * type that Spring Session Data Redis stores, so it must be stored with no setting.
   */
  @Test
  void sqlTimestampInADateField_defaultSettings_storedOnOneNodeAndReadOnTheOther() {
    Booking booking = new Booking("B-1", new java.sql.Timestamp(1_700_000_000_123L));
    LazySession session = nodes.a().createSession();
    session.setAttribute("booking", booking);
    session.setAttribute("row", new java.util.HashMap<>(Map.of("created",
        new java.sql.Timestamp(1_700_000_000_000L), "day", new java.sql.Date(1_700_000_000_000L))));
    nodes.a().save(session);

    LazySession read = nodes.b().findById(session.getId());
    assertThat((Booking) read.getAttribute("booking")).isEqualTo(booking);
    assertThat((Object) read.getAttribute("row")).isEqualTo(session.getAttribute("row"));
  }

  @Test
  void failedOAuth2Login_defaultSettings_storedWithJavaSerializationCountedAndReadOnTheOtherNode() {
    OAuth2Error error = new OAuth2Error("invalid_grant", "code expired", null);
    LazySession session = nodes.a().createSession();
    session.setAttribute("SPRING_SECURITY_LAST_EXCEPTION", new OAuth2AuthenticationException(error,
        error.toString(), new org.springframework.security.oauth2.core.OAuth2AuthorizationException(
            error)));
    nodes.a().save(session);

    Object read = nodes.b().findById(session.getId()).getAttribute("SPRING_SECURITY_LAST_EXCEPTION");
    assertThat(read).isInstanceOfSatisfying(OAuth2AuthenticationException.class,
        e -> assertThat(e.getError().getErrorCode()).isEqualTo("invalid_grant"));
    assertThat(nodes.a().serializer().codecFallbacks()).isEqualTo(1);
    byte[] stored = TestRedis.storedAttributes(nodes.raw(), nodes.sessionKey(session.getId()))
        .get("SPRING_SECURITY_LAST_EXCEPTION");
    assertThat(nodes.a().serializer().header(stored).codec()).isEqualTo(CodecKind.JDK);
  }

  @Test
  void notSerializableValue_defaultSettings_refusedAtSetAttributeNamingAttributeAndSetting() {
    LazySession session = nodes.a().createSession();

    assertThatThrownBy(() -> session.setAttribute("helper", new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("attribute 'helper'")
        .hasMessageContaining("java.lang.Object is not java.io.Serializable")
        .hasMessageContaining("lazysession.require-serializable=false");
  }

  @Test
  void notSerializableValue_requireSerializableOff_storedWithKryoAndReadOnTheOtherNode() {
    nodes.configure(b -> b.serializer(bootDefault(
        Map.of("lazysession.require-serializable", "false"))));
    LazySession session = nodes.a().createSession();
    Counter counter = new Counter();
    counter.count = 3;
    session.setAttribute("counter", counter);
    nodes.a().save(session);

    assertThat(((Counter) nodes.b().findById(session.getId()).getAttribute("counter")).count)
        .isEqualTo(3);
  }
  /**
   * Audit mode: a class outside the list is stored and read on the other node, listed once with
   * the property line to add, and both counts are published as meters.
   */
  @Test
  void classOutsideTheList_auditMode_storedReadListedAndMetered() {
    nodes.configure(b -> b.serializer(bootDefault(Map.of("lazysession.allow-list-mode", "audit"))));
    LazySession session = nodes.a().createSession();
    session.setAttribute("cart", ShopFixtures.attributes().get("cart"));
    nodes.a().save(session);

    for (int request = 0; request < 2; request++) {
      assertThat((Object) nodes.b().findById(session.getId()).getAttribute("cart"))
          .isInstanceOf(ShopFixtures.Cart.class);
    }

    java.util.Set<String> outside = nodes.b().serializer().allowList().outsideClasses();
    assertThat(outside).contains(ShopFixtures.Cart.class.getName())
        .allMatch(name -> name.startsWith(ShopFixtures.class.getName()));
    assertThat(nodes.b().serializer().allowList().outsidePropertyLine())
        .startsWith("lazysession.allowed-packages=").contains("io.lazysession.redis");
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    new io.lazysession.redis.micrometer.LazySessionMetrics(nodes.b()).bindTo(registry);
    assertThat(registry.get("lazysession.allow.list.outside").gauge().value())
        .isEqualTo(outside.size());
    assertThat(registry.get("lazysession.codec.fallbacks").functionCounter().count()).isZero();
  }
}
