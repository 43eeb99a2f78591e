package io.ckc.gateway;

import io.ckc.protocol.config.Setting;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code docs/configuration.md}, rendered from {@link GatewaySettings}: {@code ./ckc docs generate} writes it,
 * {@code ./ckc docs check} exits 1 while the committed file differs, and {@code ConfigurationDocTest} fails then.
 */
public final class ConfigurationDoc {

    /** Where the file lives, from the project root. */
    public static final Path FILE = Path.of("docs", "configuration.md");

    private ConfigurationDoc() {
    }

    public static String render() {
        StringBuilder out = new StringBuilder();
        out.append("# Configuration\n\n")
                .append("<!-- Generated from io.ckc.gateway.GatewaySettings by ./ckc docs generate; do not edit. -->\n\n")
                .append("## Gateway (environment variables)\n\n")
                .append("A gateway process (`java -jar gateway-edge/target/ckc-gateway.jar`, the `ckc-gateway` image) reads\n")
                .append("these. A value that does not parse stops the gateway at start with the variable's name.\n\n")
                .append("| variable | default | meaning |\n|---|---|---|\n");
        for (Setting setting : GatewaySettings.ALL) {
            out.append("| `").append(setting.name()).append("` | ").append(code(setting)).append(" | ")
                    .append(setting.meaning().replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")).append(" |\n");
        }
        out.append("\n## Flink jobs (flags)\n\n")
                .append("Every job takes `--bootstrap`, `--topic-prefix`, `--app-topic-prefix`, `--parallelism`,\n")
                .append("`--max-parallelism`, `--sink-guarantee` and `--linger-ms` (default 5: how long a record an at-least-once\n")
                .append("sink writes behind others in flight may wait to share their produce request, one that finds\n")
                .append("nothing in flight going at once; see `CKC_KAFKA_LINGER_MS`);\n")
                .append("`./ckc up ... -- --flag value` passes flags to every job.\n")
                .append("The PoA manager's flags are in [poa-manager.md](poa-manager.md), the MTD's in [mtd.md](mtd.md),\n")
                .append("the groupcast expansion's in [groups.md](groups.md), Flink's own configuration in\n")
                .append("[operations.md](operations.md#flink-configuration).\n");
        return out.toString();
    }

    private static String code(Setting setting) {
        return setting.defaultValue() != null ? "`" + setting.defaultText() + "`" : setting.defaultText();
    }

    /** {@code generate} writes the page under {@code root}; {@code check} returns 1 while it differs. */
    public static int apply(String action, Path root) throws IOException {
        Path file = root.resolve(FILE);
        String rendered = render();
        switch (action) {
            case "generate" -> {
                Files.writeString(file, rendered, StandardCharsets.UTF_8);
                System.out.println("wrote " + file);
                return 0;
            }
            case "check" -> {
                if (!Files.exists(file) || !Files.readString(file, StandardCharsets.UTF_8).equals(rendered)) {
                    System.err.println(file + " differs from GatewaySettings: ./ckc docs generate");
                    return 1;
                }
                return 0;
            }
            default -> throw new IllegalArgumentException("generate or check, not " + action);
        }
    }
}
