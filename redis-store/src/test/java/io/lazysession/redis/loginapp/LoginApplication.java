package io.lazysession.redis.loginapp;

import java.security.Principal;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerPortFileWriter;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot web app with Spring Security's form login as an application writes it, and nothing
 * of lazysession in its code: the limit of sessions per principal comes from properties alone.
 */
@SpringBootApplication
@EnableWebSecurity
public class LoginApplication {
  /** The system property naming the file a node run by {@link #main} writes its port to. */
  public static final String PORT_FILE = "loginapp.port-file";

  /**
   * Runs the app as a process of its own (AotLoginIT runs it so, built for Spring AOT), writing
   * its port to the file named by {@value #PORT_FILE} once it serves.
   */
  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(LoginApplication.class);
    String portFile = System.getProperty(PORT_FILE);
    if (portFile != null) {
      application.addListeners(new WebServerPortFileWriter(portFile));
    }
    application.run(args);
  }
  @Bean
  SecurityFilterChain security(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
        .formLogin(Customizer.withDefaults())
        .build();
  }

  @Bean
  UserDetailsService users() {
    return new InMemoryUserDetailsManager(
        User.withUsername("ann").password("{noop}secret").roles("USER").build());
  }

  @RestController
  static class Me {
    @GetMapping("/me")
    String me(Principal principal) {
      return principal.getName();
    }
  }
}
