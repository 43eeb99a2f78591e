package io.ckc.jobs.sql;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlRunnerJobTest {

    @Test
    void statementsSplitAtSemicolonsOutsideQuotesAndWithoutComments() {
        String script = """
                -- a comment; with a semicolon
                SET 'table.local-time-zone' = 'UTC';
                CREATE TABLE t (`a;b` STRING) WITH ('k' = 'x;y'); -- trailing
                EXECUTE STATEMENT SET
                BEGIN
                INSERT INTO t SELECT 'it''s;';
                INSERT INTO t SELECT "q;";
                END;
                """;
        assertThat(SqlRunnerJob.statements(script)).containsExactly(
                "SET 'table.local-time-zone' = 'UTC'",
                "CREATE TABLE t (`a;b` STRING) WITH ('k' = 'x;y')",
                "EXECUTE STATEMENT SET\nBEGIN\nINSERT INTO t SELECT 'it''s;'",
                "INSERT INTO t SELECT \"q;\"",
                "END");
    }

    @Test
    void anUnclosedQuoteIsAClearError() {
        assertThatThrownBy(() -> SqlRunnerJob.statements("SELECT 'oops;"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unclosed");
    }

    @Test
    void variablesComeFromFlagsThenDefaultsAndAMissingOneNamesTheFlag() {
        Map<String, String> vars = SqlRunnerJob.variables(Map.of("fence-name", "port", "flag-only", "__NO_VALUE_KEY"),
                "sql/geofence.sql");
        assertThat(SqlRunnerJob.substitute("${rule} ${fence-name:-downtown} ${lat:--22.9} ${topic-prefix}", vars))
                .isEqualTo("geofence port -22.9 ckc.");
        assertThatThrownBy(() -> SqlRunnerJob.substitute("${flag-only}", vars))
                .hasMessageContaining("--flag-only");
    }

    @Test
    void theKafkaTablesTakeTheClientSecuritySettings() {
        Properties security = new Properties();
        security.setProperty("security.protocol", "SASL_SSL");
        security.setProperty("sasl.jaas.config", "ScramLoginModule required username='ckc';");
        Map<String, String> vars = new HashMap<>(SqlRunnerJob.variables(Map.of(), "battery.sql"));
        vars.put("kafka-security", SqlRunnerJob.kafkaSecurityOptions(security));
        String tables = SqlRunnerJob.substitute(SqlRunnerJob.read("tables.sql"), vars);
        List<String> kafkaTables = SqlRunnerJob.statements(tables).stream()
                .filter(statement -> statement.contains("'properties.bootstrap.servers'")).toList();
        assertThat(kafkaTables).hasSize(3).allSatisfy(table -> assertThat(table)
                .contains("'properties.security.protocol' = 'SASL_SSL',")
                .contains("'properties.sasl.jaas.config' = 'ScramLoginModule required username=''ckc'';',"));
        assertThat(SqlRunnerJob.variables(Map.of(), "battery.sql")).containsEntry("kafka-security", "");
    }

    @Test
    void everyShippedRuleParsesIntoStatementsWithItsDefaults() {
        for (String rule : new String[] {"geofence.sql", "battery.sql", "zone-recent.sql", "drivers.sql"}) {
            String substituted = SqlRunnerJob.substitute(SqlRunnerJob.read("tables.sql") + SqlRunnerJob.read(rule),
                    SqlRunnerJob.variables(Map.of(), rule));
            assertThat(substituted).doesNotContain("${");
            assertThat(new GroupingRule(rule, SqlRunnerJob.substitute(SqlRunnerJob.read(rule),
                    SqlRunnerJob.variables(Map.of(), rule)), "x").isShort()).as(rule + " in the short form").isTrue();
            String full = SqlRunnerJob.substitute(SqlRunnerJob.read("../sql/full-form/" + rule.replace("drivers", "battery")),
                    SqlRunnerJob.variables(Map.of(), rule));
            assertThat(SqlRunnerJob.statements(full)).anyMatch(s -> s.startsWith("EXECUTE STATEMENT SET"));
        }
    }
}
