package io.lazysession.redis.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * The default configuration must start in a small container: a 256MB memory limit gives the JVM a
 * 64MB maximum heap by default (MaxRAMPercentage=25), of which Runtime.maxMemory() reports a little
 * less (one survivor space). The near cache's default max-bytes (64MB) is a bound it fills only as
 * sessions are read, not memory it takes at startup.
 */
class NearCacheSmallHeapTest {

  /** Run in a JVM with -Xmx64m: binds the defaults exactly as Boot does. */
  public static void main(String[] args) {
    new LazySessionProperties.NearCache(DataSize.ofMegabytes(64),
        LazySessionProperties.NearCacheMode.VALIDATE, Duration.ofMillis(500));
    System.out.println("started, maxMemory=" + Runtime.getRuntime().maxMemory());
  }

  @Test
  void nearCacheDefaults_inA64MbHeap_startUp() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(List.of(java, "-Xmx64m", "-cp",
        System.getProperty("java.class.path"), NearCacheSmallHeapTest.class.getName()))
        .redirectErrorStream(true).start();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(child.exitValue()).as(output).isZero();
  }
}
