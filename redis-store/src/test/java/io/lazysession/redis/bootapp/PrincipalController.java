package io.lazysession.redis.bootapp;

import jakarta.servlet.http.HttpSession;
import org.springframework.session.FindByIndexNameSessionRepository;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Names the session's user the way Spring Security's integration does, without Spring Security. */
@RestController
class PrincipalController {
  @GetMapping("/login/{name}")
  String login(HttpSession session, @PathVariable String name) {
    session.setAttribute(FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME, name);
    return session.getId();
  }
}
