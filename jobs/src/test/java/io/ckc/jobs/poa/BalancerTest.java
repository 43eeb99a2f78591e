package io.ckc.jobs.poa;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Supplier;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class BalancerTest {

    private static final Balancer.Settings SETTINGS = new Balancer.Settings(10, 0.05, 1_000);

    @Test
    void idealCountsFollowTheScoresAndAlwaysSumToTheNodeCount() {
        Random random = new Random(7);
        for (int trial = 0; trial < 500; trial++) {
            Map<String, Double> weights = new LinkedHashMap<>();
            int gateways = 1 + random.nextInt(8);
            for (int g = 0; g < gateways; g++) {
                weights.put("gw-" + g, random.nextDouble());
            }
            int n = random.nextInt(20_000);
            Map<String, Integer> ideal = Balancer.idealCounts(weights, n);
            assertThat(ideal.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(n);
            double total = weights.values().stream().mapToDouble(Double::doubleValue).sum();
            weights.forEach((id, w) -> assertThat(Math.abs(ideal.get(id) - n * w / total)).isLessThan(1.0));
        }
        assertThat(Balancer.idealCounts(Map.of("a", 2.0, "b", 1.0), 600)).containsEntry("a", 400).containsEntry("b", 200);
        assertThat(Balancer.idealCounts(new LinkedHashMap<>(Map.of("a", 1.0, "b", 1.0, "c", 1.0)), 10).values())
                .containsExactlyInAnyOrder(4, 3, 3);
    }

    @Test
    void nothingMovesWhileEveryGatewayIsInsideTheThreshold() {
        Balancer balancer = new Balancer(SETTINGS);
        // Ideal 200 each; 209 is 9 nodes off (abs threshold 10) and 210 is 5% off (rel threshold 5%).
        Balancer.Plan plan = balancer.plan(List.of(gateway("gw-1", 209), gateway("gw-2", 191), gateway("gw-3", 200)),
                mn -> false);
        assertThat(plan.moves()).isEmpty();
        assertThat(plan.decision()).isEqualTo("within-threshold");
        plan = balancer.plan(List.of(gateway("gw-1", 210), gateway("gw-2", 190), gateway("gw-3", 200)), mn -> false);
        assertThat(plan.moves()).isEmpty();
        plan = balancer.plan(List.of(gateway("gw-1", 200), gateway("gw-2", 200), gateway("gw-3", 200)), mn -> false);
        assertThat(plan.decision()).isEqualTo("balanced");
    }

    @Test
    void onlyADonorsNodesAreRead() {
        Balancer balancer = new Balancer(SETTINGS);
        Supplier<List<String>> unread = () -> {
            throw new AssertionError("the nodes of a gateway that gives none away were read");
        };
        Balancer.Plan plan = balancer.plan(List.of(gateway("gw-1", 300),
                new Balancer.Gateway("gw-2", 1.0, 100, unread, false, false)), mn -> false);
        assertThat(plan.moves()).hasSize(100).allMatch(m -> m.from().equals("gw-1"));
        plan = balancer.plan(List.of(new Balancer.Gateway("gw-1", 1.0, 200, unread, false, false),
                new Balancer.Gateway("gw-2", 1.0, 200, unread, false, false)), mn -> false);
        assertThat(plan.moves()).isEmpty();
    }

    @Test
    void nodesMoveFromGatewaysAboveTheirIdealToThoseBelowUntilEachIsAtIt() {
        Balancer balancer = new Balancer(SETTINGS);
        Balancer.Plan plan = balancer.plan(List.of(gateway("gw-1", 600), gateway("gw-2", 0), gateway("gw-3", 0)),
                mn -> false);
        assertThat(plan.ideal()).containsEntry("gw-1", 200).containsEntry("gw-2", 200).containsEntry("gw-3", 200);
        assertThat(plan.moves()).hasSize(400);
        assertThat(plan.moves()).allMatch(m -> m.from().equals("gw-1"));
        assertThat(plan.moves().stream().collect(Collectors.groupingBy(Balancer.Move::to, Collectors.counting())))
                .containsEntry("gw-2", 200L).containsEntry("gw-3", 200L);
        assertThat(plan.moves().stream().map(Balancer.Move::mnId).distinct()).hasSize(400);
    }

    @Test
    void theCapLimitsHandoversPerRound() {
        Balancer balancer = new Balancer(new Balancer.Settings(10, 0.05, 150));
        Balancer.Plan plan = balancer.plan(List.of(gateway("gw-1", 600), gateway("gw-2", 0), gateway("gw-3", 0)),
                mn -> false);
        assertThat(plan.moves()).hasSize(150);
    }

    @Test
    void aNodeInItsCooldownIsNeverChosen() {
        Balancer balancer = new Balancer(SETTINGS);
        Set<String> cooling = IntStream.range(0, 300).mapToObj(i -> "gw-1-mn-" + i).collect(Collectors.toSet());
        Balancer.Plan plan = balancer.plan(List.of(gateway("gw-1", 600), gateway("gw-2", 0), gateway("gw-3", 0)),
                cooling::contains);
        assertThat(plan.moves()).hasSize(300); // only 300 nodes may move
        assertThat(plan.moves()).noneMatch(m -> cooling.contains(m.mnId()));
        assertThat(plan.inCooldown()).isEqualTo(300);
    }

    @Test
    void aDrainingGatewayGivesUpItsNodesOnlyOnceItLeftTheGatewayList() {
        Balancer balancer = new Balancer(SETTINGS);
        Balancer.Gateway drainingListed = new Balancer.Gateway("gw-3", 1, 100, members("gw-3", 100), true, false);
        Balancer.Plan plan = balancer.plan(List.of(gateway("gw-1", 100), gateway("gw-2", 100), drainingListed),
                mn -> false);
        assertThat(plan.ideal()).containsEntry("gw-3", 0);
        assertThat(plan.moves()).isEmpty();

        Balancer.Gateway drainingUnlisted = new Balancer.Gateway("gw-3", 1, 100, members("gw-3", 100), true, true);
        plan = balancer.plan(List.of(gateway("gw-1", 100), gateway("gw-2", 100), drainingUnlisted), mn -> false);
        assertThat(plan.moves()).hasSize(100).allMatch(m -> m.from().equals("gw-3"));
        assertThat(plan.decision()).isEqualTo("draining");
    }

    private static Balancer.Gateway gateway(String id, int connected) {
        return new Balancer.Gateway(id, 1.0, connected, members(id, connected), false, false);
    }

    private static Supplier<List<String>> members(String gateway, int count) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            members.add(gateway + "-mn-" + i);
        }
        return () -> members;
    }
}
