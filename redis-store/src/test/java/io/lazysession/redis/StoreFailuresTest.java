package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

class StoreFailuresTest {
  @Test
  void translate_timeout_isUnavailableNamingOperationAndSession() {
    RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("Command timed out");

    SessionStoreException failure = StoreFailures.translate("findById", "abc", timeout);

    assertThat(failure).isInstanceOf(SessionStoreUnavailableException.class)
        .hasCause(timeout)
        .hasMessageStartingWith("findById of session abc failed: Redis is unavailable");
    assertThat(failure.operation()).isEqualTo("findById");
    assertThat(failure.sessionId()).isEqualTo("abc");
  }

  @Test
  void translate_rejectedWhileDisconnected_isUnavailable() {
    RedisException rejected = new RedisException("Currently not connected. Commands are rejected.");

    assertThat(StoreFailures.translate("save", "abc", rejected))
        .isInstanceOf(SessionStoreUnavailableException.class);
    assertThat(StoreFailures.translate("save", "abc", new RedisConnectionException("refused")))
        .isInstanceOf(SessionStoreUnavailableException.class);
  }

  @Test
  void translate_failoverAnswers_areUnavailable() {
    for (String answer : new String[] {"READONLY You can't write against a read only replica.",
        "LOADING Redis is loading the dataset in memory", "CLUSTERDOWN The cluster is down",
        "MOVED 3999 127.0.0.1:6381", "MASTERDOWN Link with MASTER is down"}) {
      assertThat(StoreFailures.translate("save", "abc",
          new RedisCommandExecutionException(answer)))
          .as(answer).isInstanceOf(SessionStoreUnavailableException.class);
    }
  }

  @Test
  void translate_scriptError_isAPlainStoreException() {
    SessionStoreException failure = StoreFailures.translate("save", "abc",
        new RedisCommandExecutionException("ERR Error running script"));

    assertThat(failure).isExactlyInstanceOf(SessionStoreException.class)
        .hasMessage("save of session abc failed: Redis answered: ERR Error running script");
  }

  @Test
  void translate_withoutSession_namesTheOperationOnly() {
    assertThat(StoreFailures.translate("cleanUpExpiredSessions", null,
        new RedisCommandTimeoutException("Command timed out")))
        .hasMessageStartingWith("cleanUpExpiredSessions failed: ");
  }
}
