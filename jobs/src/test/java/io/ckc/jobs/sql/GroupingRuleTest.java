package io.ckc.jobs.sql;

import org.apache.flink.util.ParameterTool;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Short-form rules: what {@code ./ckc sql try} gives for the shipped samples, and what {@code check}
 * says of broken rules (the file's line and column).
 */
class GroupingRuleTest {

    private static final Path SQL = Path.of("../sql");

    private static String tables() throws Exception {
        return SqlRunnerJob.substitute(Files.readString(SQL.resolve("tables.sql")),
                SqlRunnerJob.variables(Map.of(), "rule.sql"));
    }

    private static GroupingRule rule(String file, String text) {
        return new GroupingRule(file, SqlRunnerJob.substitute(text, SqlRunnerJob.variables(Map.of(), file)),
                file.replace(".sql", ""));
    }

    private static Map<String, RuleTrial.Groups> trial(String ruleFile, String samplesFile) throws Exception {
        GroupingRule rule = rule(ruleFile, Files.readString(SQL.resolve(ruleFile)));
        return RuleTrial.run(tables(), rule, Files.readAllLines(SQL.resolve("samples").resolve(samplesFile)));
    }

    @Test
    void theDriversRuleGroupsExactlyTheNodesWhoseLatestReportSaysDriver() throws Exception {
        Map<String, RuleTrial.Groups> groups = trial("drivers.sql", "drivers.jsonl");
        assertThat(groups.get("mn-1").groups()).containsExactly("drivers");
        assertThat(groups.get("mn-2").groups()).as("a passenger: in none, still written once").isEmpty();
        assertThat(groups.get("mn-3").groups()).as("a driver, then a passenger").isEmpty();
        assertThat(groups.get("mn-4").groups()).isEmpty();
        assertThat(groups.get("mn-5").groups()).containsExactly("drivers");
        assertThat(groups.values()).allMatch(g -> g.expiresAt() == null);
    }
}
