package io.lazysession.sample.security;

import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.oauth2.client.registration.ClientRegistrationRepository;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AuthenticationSuccessHandler;

/**
 * Spring Security as an application would set it up: form login on the shop's own page, in-memory
 * users, Spring Security's CSRF protection and logout; OpenID Connect login too when an identity
 * provider is configured ({@code spring.security.oauth2.client.registration.*}). Everything Spring Security keeps between
 * requests (the security context, the saved request, the CSRF token) lives in the HTTP session, so in
 * Redis through lazysession, with its default configuration: a user who signed in on one node is
 * signed in on every node.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {
  /** The demo accounts; each has the password {@value #DEMO_PASSWORD}. */
  static final List<String> DEMO_USERS = List.of("ada", "grace", "margaret", "alan");
  static final String DEMO_PASSWORD = "password";

  @Bean
  SecurityFilterChain shopSecurity(HttpSecurity http, AuthenticationSuccessHandler signedIn,
      ObjectProvider<ClientRegistrationRepository> identityProviders) throws Exception {
    http.authorizeHttpRequests(requests -> requests
            .requestMatchers("/cart", "/history", "/checkout", "/checkout/**").authenticated()
            .anyRequest().permitAll())
        .formLogin(form -> form
            .loginPage("/signin")
            .loginProcessingUrl("/signin")
            .failureUrl("/signin?error")
            .successHandler(signedIn))
        .logout(logout -> logout
            .logoutUrl("/signout")
            .logoutSuccessUrl("/"));
    if (identityProviders.getIfAvailable() != null) {
      // OpenID Connect login, when spring.security.oauth2.client.registration.* names a provider
      http.oauth2Login(oauth -> oauth
          .loginPage("/signin")
          .successHandler(signedIn));
    }
    return http.build();
  }

  @Bean
  PasswordEncoder passwordEncoder() {
    return PasswordEncoderFactories.createDelegatingPasswordEncoder();
  }

  @Bean
  UserDetailsService users(PasswordEncoder encoder) {
    String password = encoder.encode(DEMO_PASSWORD);
    return new InMemoryUserDetailsManager(DEMO_USERS.stream()
        .map(name -> (UserDetails) User.withUsername(name).password(password).roles("USER", "CUSTOMER").build())
        .toList());
  }
}
