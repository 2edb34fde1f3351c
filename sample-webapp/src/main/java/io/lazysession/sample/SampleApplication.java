package io.lazysession.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The lazysession sample shop. Its sessions live in Redis through lazysession's auto-configuration;
 * without any {@code spring.data.redis.*} setting it starts an embedded Redis first.
 */
@SpringBootApplication
public class SampleApplication {

  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(SampleApplication.class);
    application.addListeners(new EmbeddedRedisStarter());
    application.run(args);
  }
}
