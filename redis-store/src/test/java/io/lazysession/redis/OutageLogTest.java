package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class OutageLogTest {
  final OutageLog outage = new OutageLog();
  final Logger logger = (Logger) LoggerFactory.getLogger(OutageLog.class);
  final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  @BeforeEach
  void capture() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logs);
  }

  List<ILoggingEvent> at(Level level) {
    return logs.list.stream().filter(event -> event.getLevel() == level).toList();
  }

  @Test
  void translate_manyFailuresOfOneOutage_logsOneWarnWithoutStackTrace() {
    for (int i = 0; i < 50; i++) {
      outage.translate("findById", "s" + i, new RedisCommandTimeoutException("timed out"));
    }

    assertThat(at(Level.WARN)).singleElement().satisfies(event -> {
      assertThat(event.getFormattedMessage()).contains("Redis is unavailable")
          .contains("answered 503").contains("findById of session s0 failed")
          .contains("logged once per outage");
      assertThat(event.getThrowableProxy()).isNull();
    });
    assertThat(outage.isDown()).isTrue();
  }

  @Test
  void available_afterAnOutage_logsOneInfoSayingHowManyFailed() {
    outage.translate("findById", "a", new RedisConnectionException("refused"));
    outage.translate("save", "a", new RedisConnectionException("refused"));

    outage.available();
    outage.available();

    assertThat(at(Level.INFO)).singleElement().satisfies(event -> assertThat(
        event.getFormattedMessage()).contains("Redis is available again after")
        .contains("(2 operations failed meanwhile)"));
    assertThat(outage.isDown()).isFalse();
  }

  @Test
  void available_twoOutages_logsEachOnce() {
    outage.translate("findById", "a", new RedisConnectionException("refused"));
    outage.available();
    outage.translate("findById", "a", new RedisConnectionException("refused again"));
    outage.available();

    assertThat(at(Level.WARN)).hasSize(2);
    assertThat(at(Level.INFO)).hasSize(2);
  }

  @Test
  void available_noOutage_logsNothing() {
    outage.available();

    assertThat(logs.list).isEmpty();
  }

  @Test
  void translate_errorAnswer_isNoOutageAndIsNotLoggedHere() {
    SessionStoreException failure = outage.translate("save", "a",
        new RedisCommandExecutionException("ERR Error running script"));

    assertThat(failure).isNotInstanceOf(SessionStoreUnavailableException.class);
    assertThat(logs.list).isEmpty();
    assertThat(outage.isDown()).isFalse();
  }

  @Test
  void unavailableAtStartup_namesThePropertyThatRefusesToStartInstead() {
    outage.unavailableAtStartup("Connection refused: /127.0.0.1:1");
    outage.translate("findById", "a", new RedisConnectionException("not connected"));

    assertThat(at(Level.WARN)).singleElement().satisfies(event -> assertThat(
        event.getFormattedMessage()).contains("starting without Redis (Connection refused")
        .contains("answered 503 until it is reachable")
        .contains("lazysession.require-redis-at-startup=true"));
  }
}
