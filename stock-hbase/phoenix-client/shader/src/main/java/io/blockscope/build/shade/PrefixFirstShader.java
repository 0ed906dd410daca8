package io.blockscope.build.shade;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import javax.inject.Named;
import javax.inject.Singleton;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.shade.DefaultShader;
import org.apache.maven.plugins.shade.ShadeRequest;
import org.apache.maven.plugins.shade.Shader;
import org.apache.maven.plugins.shade.relocation.Relocator;

/**
 * maven-shade-plugin's own {@link DefaultShader}, given each relocation as a {@link
 * PrefixFirstRelocator}: the rules, filters and transformers of the pom that shades are untouched.
 * A pom selects it with {@code <shaderHint>prefix-first</shaderHint>} and this jar as a dependency
 * of the shade plugin.
 */
@Named("prefix-first")
@Singleton
public final class PrefixFirstShader implements Shader {
  private final Shader shader = new DefaultShader();

  @Override
  public void shade(ShadeRequest request) throws IOException, MojoExecutionException {
    List<Relocator> relocators = new ArrayList<>();
    for (Relocator r : request.getRelocators()) {
      relocators.add(PrefixFirstRelocator.of(r));
    }
    request.setRelocators(relocators);
    shader.shade(request);
  }
}
