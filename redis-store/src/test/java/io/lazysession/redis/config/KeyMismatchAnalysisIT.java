package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.testing.RedisServerExtension;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * A node whose key bytes for a key id differ from the other nodes' refuses to start (it would take
 * every value as forged) with a failure analysis about lazysession.encryption.keys: the key id and
 * the fix, never a key, and not a connection problem. On real Redis: the names key the first node
 * stores there is what tells the two apart.
 */
class KeyMismatchAnalysisIT {
  @RegisterExtension
  static final RedisServerExtension redis = RedisServerExtension.standalone();

  private static final java.util.concurrent.atomic.AtomicInteger NAMESPACES =
      new java.util.concurrent.atomic.AtomicInteger();
  static final String CLUSTER_SECRET = secret(1);
  static final String OTHER_SECRET = secret(2);

  private static String secret(int value) {
    byte[] bytes = new byte[32];
    Arrays.fill(bytes, (byte) value);
    return Base64.getEncoder().encodeToString(bytes);
  }

  private static String uniqueNamespace(String test) {
    return "t" + ProcessHandle.current().pid() + "-" + NAMESPACES.incrementAndGet() + "-" + test;
  }

  private static WebApplicationContextRunner node(String namespace, String keys) {
    return new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LazySessionAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + redis.url(),
            "lazysession.namespace=" + namespace, "lazysession.encryption.keys=" + keys);
  }

  private static FailureAnalysis refusal(String namespace, String keys) {
    FailureAnalysis[] analysis = new FailureAnalysis[1];
    node(namespace, keys).run(context -> {
      assertThat(context).hasFailed();
      analysis[0] = new LazySessionFailureAnalyzer().analyze(context.getStartupFailure());
    });
    assertThat(analysis[0]).as("a failure analysis").isNotNull();
    return analysis[0];
  }

  @Test
  void startup_keyIdWithOtherBytesThanTheCluster_namesTheKeysPropertyTheIdAndTheFix() {
    String namespace = uniqueNamespace("key-mismatch");
    node(namespace, "k1:" + CLUSTER_SECRET).run(context -> assertThat(context).hasNotFailed());

    FailureAnalysis analysis = refusal(namespace, "k1:" + OTHER_SECRET);

    assertThat(analysis.getDescription())
        .contains("Setting: lazysession.encryption.keys")
        .contains("key 'k1' of this node is not the key 'k1' that the other nodes of namespace '"
            + namespace + "' use")
        .doesNotContain("spring.data.redis");
    assertThat(analysis.getAction())
        .contains("Give this node the lazysession.encryption.keys of the other nodes of the "
            + "namespace: each key id with the same secret as theirs")
        .doesNotContain("Check that Redis is running");
    assertThat(analysis.getDescription() + analysis.getAction())
        .doesNotContain(CLUSTER_SECRET).doesNotContain(OTHER_SECRET);
  }

  @Test
  void startup_noneOfTheClustersKeyIds_namesTheKeysPropertyAndTheIds() {
    String namespace = uniqueNamespace("key-unknown");
    node(namespace, "k1:" + CLUSTER_SECRET).run(context -> assertThat(context).hasNotFailed());

    FailureAnalysis analysis = refusal(namespace, "k9:" + OTHER_SECRET);

    assertThat(analysis.getDescription())
        .contains("Setting: lazysession.encryption.keys")
        .contains("stored in Redis under key ids [k1] only")
        .contains("it holds [k9]")
        .doesNotContain("spring.data.redis");
    assertThat(analysis.getDescription() + analysis.getAction())
        .doesNotContain(CLUSTER_SECRET).doesNotContain(OTHER_SECRET);
  }
}
