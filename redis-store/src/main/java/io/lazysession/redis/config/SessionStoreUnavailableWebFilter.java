package io.lazysession.redis.config;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The WebFlux twin of {@link SessionStoreUnavailableFilter} (a twin because the two stacks share
 * no filter API): answers 503 with {@code Retry-After} ({@link OutageResponses}) when an exchange
 * fails because Redis is unavailable, whether loading the session or saving it as the response is
 * committed (Spring lets a response whose commit action failed be written again). Ordered first, so
 * that it sees what Spring Security's filters and the handlers signal, before Spring Boot's error
 * handler would render a 500. Thread-safe (stateless).
 */
final class SessionStoreUnavailableWebFilter implements WebFilter, Ordered {
  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    return chain.filter(exchange).onErrorResume(e -> answerable(exchange, e),
        // Writing the page commits the response, which runs the commit actions that have not run
        // yet: when the failure came before the commit (a sign-in's id change saves at once), one
        // of them saves the session again and fails again. Spring then lets the response be
        // written once more, without the actions.
        e -> respond(exchange.getResponse()).onErrorResume(again -> answerable(exchange, again),
            again -> respond(exchange.getResponse())));
  }

  private static boolean answerable(ServerWebExchange exchange, Throwable e) {
    return OutageResponses.unavailable(e) != null && !exchange.getResponse().isCommitted();
  }

  private static Mono<Void> respond(ServerHttpResponse response) {
    response.setStatusCode(HttpStatus.SERVICE_UNAVAILABLE);
    response.getCookies().clear();
    HttpHeaders headers = response.getHeaders();
    headers.clear();
    headers.set(HttpHeaders.RETRY_AFTER, OutageResponses.RETRY_AFTER_SECONDS);
    headers.setCacheControl("no-store");
    headers.setContentType(MediaType.parseMediaType(OutageResponses.CONTENT_TYPE));
    headers.setContentLength(OutageResponses.BODY.length);
    return response.writeWith(Mono.fromSupplier(
        () -> response.bufferFactory().wrap(OutageResponses.BODY)));
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
