package io.ckc.jobs.sql;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Short-form rules: what {@code ./ckc sql try} gives for the shipped rules and their samples in
 * {@code sql/samples/}, and the errors {@code check} reports, at the file's line and column.
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

    private static RuleTrial.Outcome trial(String ruleFile, String samplesFile) throws Exception {
        GroupingRule rule = rule(ruleFile, Files.readString(SQL.resolve(ruleFile)));
        return RuleTrial.run(tables(), rule, Files.readAllLines(SQL.resolve("samples").resolve(samplesFile)));
    }

    private static Map<String, RuleTrial.Groups> groups(String ruleFile) throws Exception {
        return trial(ruleFile, ruleFile.replace(".sql", ".jsonl")).groups();
    }

    /** Plans a rule as check does; the error it gives, or null. */
    private static GroupingRule.RuleError checkError(String file, String text) throws Exception {
        StreamTableEnvironment env = StreamTableEnvironment.create(StreamExecutionEnvironment.createLocalEnvironment(1));
        return catchThrowableOfType(GroupingRule.RuleError.class,
                () -> SqlRunnerJob.plan(env, tables(), rule(file, text)).explain());
    }

    @Test
    void theDriversRuleGroupsExactlyTheNodesWhoseLatestReportSaysDriver() throws Exception {
        RuleTrial.Outcome outcome = trial("drivers.sql", "drivers.jsonl");
        Map<String, RuleTrial.Groups> groups = outcome.groups();
        assertThat(groups.get("mn-1").groups()).containsExactly("drivers");
        assertThat(groups.get("mn-2").groups()).as("a passenger: in none, still written once").isEmpty();
        assertThat(groups.get("mn-3").groups()).as("a driver, then a passenger").isEmpty();
        assertThat(groups.get("mn-4").groups()).isEmpty();
        assertThat(groups.get("mn-5").groups()).containsExactly("drivers");
        assertThat(groups.values()).allMatch(g -> g.expiresAt() == null);
        assertThat(outcome.malformed()).isOne();
        assertThat(rule("drivers.sql", Files.readString(SQL.resolve("drivers.sql"))).definer()).isEqualTo("role");
    }

    @Test
    void theShippedBatteryAndGeofenceRulesFollowEachNodesLatestReport() throws Exception {
        Map<String, RuleTrial.Groups> battery = groups("battery.sql");
        assertThat(battery.get("mn-low").groups()).containsExactly("low");
        assertThat(battery.get("mn-full").groups()).isEmpty();
        assertThat(battery.get("mn-charged").groups()).as("low, then charged").isEmpty();
        assertThat(battery.get("mn-unknown").groups()).as("no battery reported").isEmpty();

        Map<String, RuleTrial.Groups> fence = groups("geofence.sql");
        assertThat(fence.get("mn-in").groups()).containsExactly("downtown");
        assertThat(fence.get("mn-out").groups()).isEmpty();
        assertThat(fence.get("mn-cross").groups()).containsExactly("downtown");
        assertThat(fence.get("mn-leave").groups()).isEmpty();
    }

    @Test
    void aWindowedRuleLeasesEachWindowsGroupsUntilTheNextWindowsEnd() throws Exception {
        // HOP of 300 s every 60 s: mn-a's last window is [60 s, 360 s), with only its second zone; mn-b's
        // is [0, 300 s) with both its zones. Leases: the window's end plus the slide.
        Map<String, RuleTrial.Groups> zones = groups("zone-recent.sql");
        assertThat(zones.get("mn-a").groups()).containsExactly("zone:-2300:-4337");
        assertThat(zones.get("mn-a").expiresAt()).isEqualTo(420_000L);
        assertThat(zones.get("mn-b").groups()).containsExactly("zone:-2291:-4318", "zone:-2292:-4319");
        assertThat(zones.get("mn-b").expiresAt()).isEqualTo(360_000L);
    }

    @Test
    void aNodeInSeveralGroupsOfOneRuleHasThemAll() throws Exception {
        GroupingRule rule = rule("status.sql", """
                -- definer: status
                SELECT mnId, 'low' AS grp FROM context_reports WHERE battery < 0.2
                UNION ALL
                SELECT mnId, CONCAT('role:', JSON_VALUE(raw, '$.context.attributes.role')) FROM context_reports
                WHERE JSON_VALUE(raw, '$.context.attributes.role') IS NOT NULL
                """);
        Map<String, RuleTrial.Groups> groups = RuleTrial.run(tables(), rule, List.of(
                "{\"mnId\":\"mn-1\",\"timestamp\":1000,\"context\":{\"battery\":0.1,\"attributes\":{\"role\":\"driver\"}}}",
                "{\"mnId\":\"mn-2\",\"timestamp\":1000,\"context\":{\"battery\":0.9,\"attributes\":{}}}")).groups();
        assertThat(groups.get("mn-1").groups()).containsExactly("low", "role:driver");
        assertThat(groups.get("mn-2").groups()).isEmpty();
    }

    @Test
    void checkGivesTheFilesLineAndColumnOfABrokenRule() throws Exception {
        GroupingRule.RuleError misspelt = checkError("bad.sql", "-- a rule\nSELECT mnId, 'x' AS grp FROM context_reportz");
        assertThat(misspelt.describe()).startsWith("bad.sql:2:30: ").contains("context_reportz");

        GroupingRule.RuleError parse = checkError("bad.sql", "SELECT mnId, 'x' AS grp\n  FROMM context_reports");
        assertThat(parse.describe()).startsWith("bad.sql:2:").contains("FROMM");

        assertThat(checkError("bad.sql", "SELECT mnId FROM context_reports").describe())
                .isEqualTo("bad.sql: the query must select a column grp (STRING): one row per group a node is in, "
                        + "e.g. SELECT mnId, 'low' AS grp FROM context_reports WHERE battery < 0.2");
        assertThat(checkError("bad.sql", "SELECT mnId, battery AS grp FROM context_reports").describe())
                .contains("column grp must be STRING, is DOUBLE");
        assertThatThrownBy(() -> rule("bad.sql", "-- just a comment")).hasMessageContaining("no query");
        assertThat(checkError("ok.sql", Files.readString(SQL.resolve("drivers.sql")))).isNull();
        assertThat(checkError("full.sql", Files.readString(SQL.resolve("full-form/battery.sql"))))
                .as("the full form plans too").isNull();
    }

    @Test
    void rawIsQuotedAsTheColumnOutsideQuotesAndNotAsTheType() {
        assertThat(GroupingRule.quoteRaw("SELECT JSON_VALUE(raw, '$.raw') AS r, CAST(x AS RAW('a', 'b')) -- raw\nFROM t"))
                .isEqualTo("SELECT JSON_VALUE(`raw`, '$.raw') AS r, CAST(x AS RAW('a', 'b')) -- raw\nFROM t");
        assertThat(GroupingRule.quoteRaw("SELECT `raw`, raw_value FROM t")).isEqualTo("SELECT `raw`, raw_value FROM t");
    }
}
