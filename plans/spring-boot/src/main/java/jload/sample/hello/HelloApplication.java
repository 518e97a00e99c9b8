package jload.sample.hello;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Seed 004's gateway in its smallest form: a Spring Boot WebFlux (Reactor Netty) app whose one endpoint,
 * {@code GET /api/hello}, answers a small JSON body. The port comes from the command line ({@code --server.port}).
 */
@SpringBootApplication
@RestController
public class HelloApplication {

  public static void main(String[] args) {
    SpringApplication.run(HelloApplication.class, args);
  }

  @GetMapping("/api/hello")
  public Mono<Map<String, String>> hello() {
    return Mono.just(Map.of("message", "hello"));
  }
}
