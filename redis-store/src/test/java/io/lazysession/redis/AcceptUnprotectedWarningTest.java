package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The WARN a node with keys logs at startup while it still reads unprotected values. */
class AcceptUnprotectedWarningTest {
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(RepositoryWiring.class);

  @BeforeEach
  void capture() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logs);
  }

  private static SessionEncryption.Builder keys() {
    return SessionEncryption.builder().keys(java.util.List.of(EncryptionKey.of("k1", new byte[32])));
  }

  @Test
  void warn_keysAcceptingUnprotected_warnsNamingThePropertyAndTheRisk() {
    RepositoryWiring.warnWhileAcceptingUnprotected(keys().acceptUnprotected(true).build(), "shop");

    assertThat(logs.list).singleElement().satisfies(event -> {
      assertThat(event.getLevel()).isEqualTo(Level.WARN);
      assertThat(event.getFormattedMessage()).contains("namespace shop")
          .contains("lazysession.encryption.accept-unprotected=true")
          .contains("anyone who can write to Redis can plant a session")
          .contains("reencrypt()");
    });
  }

  @Test
  void warn_keysOnlyOrNoKeys_saysNothing() {
    RepositoryWiring.warnWhileAcceptingUnprotected(keys().build(), "shop");
    RepositoryWiring.warnWhileAcceptingUnprotected(null, "shop");

    assertThat(logs.list).isEmpty();
  }
}
