package io.ckc.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * End-to-end runs on real container engines, as projects that ship images and Kubernetes files keep
 * them (the Flink Kubernetes Operator's e2e tests run on kind): the compose stack with the demo, and a
 * kind cluster with the operators, {@code k8s/} and the demo. They cannot run where CKC is developed
 * (no Docker engine there); {@code .github/workflows/e2e.yml} runs them where one is. Every step is an
 * ordinary command, printed before it runs, so a person can run any of them by hand; the clean-up
 * steps run whatever happened before.
 */
@Command(name = "e2e", mixinStandardHelpOptions = true,
        description = "End to end on a machine with a container engine (Docker, and for kind also kind, kubectl and "
                + "helm): compose builds and starts the stack of docker/compose.yaml, runs the demo against it and "
                + "removes it; kind does the same on a kind cluster with the operators and k8s/. --dry-run prints the "
                + "steps.",
        subcommands = {E2eCommand.Compose.class, E2eCommand.Kind.class})
final class E2eCommand implements Runnable {

    /** One step: what it does, the command, and whether it is clean-up (runs even after a failure). */
    record Step(String what, List<String> command, boolean cleanup) {
        static Step of(String what, String... command) {
            return new Step(what, List.of(command), false);
        }

        static Step cleanup(String what, String... command) {
            return new Step(what, List.of(command), true);
        }

        String line() {
            return String.join(" ", command.stream().map(w -> w.contains(" ") || w.contains("{") ? "'" + w + "'" : w)
                    .toList());
        }
    }

    static final String DEMO_GATEWAYS = "127.0.0.1:5500,127.0.0.1:5501,127.0.0.1:5502";
    /** The credential stores the compose gateways mount (docker/secrets/) and the kind run's Secret is made of. */
    static final String COMPOSE_CREDENTIALS = "docker/secrets/credentials.json";
    static final String KIND_CREDENTIALS = ".ckc/kind-credentials.json";
    /**
     * docker compose with what compose.yaml has no default for: the run's throwaway MQTT keystore's password (made by a
     * step below with it), a Grafana password, and this user's uid, which the gateways run as to read docker/secrets.
     */
    private static final String[] COMPOSE = {"env", "CKC_TLS_KEYSTORE_PASSWORD=changeit",
            "GRAFANA_ADMIN_PASSWORD=ckc-e2e-only", "CKC_UID=" + new com.sun.security.auth.module.UnixSystem().getUid(),
            "docker", "compose", "-p", "ckc", "-f", "docker/compose.yaml"};

    static List<Step> composeSteps() {
        return List.of(
                Step.of("build the images (tests left out: CI ran them) and start the stack",
                        concat(COMPOSE, "build", "--build-arg", "MAVEN_ARGS=-DskipTests")),
                Step.of("the nodes' credential store, with the simulator's fleet", "./ckc", "credentials", "fleet",
                        Stack.SIMULATOR_FLEET, "--store", COMPOSE_CREDENTIALS, "--groupcast", "*"),
                Step.of("the MQTT listeners' certificate", "./ckc", "credentials", "tls", "docker/secrets/gateway.p12",
                        "--password", "changeit"),
                Step.of("the Kafka principals of every component", "./ckc", "credentials", "kafka", "--compose"),
                Step.of("start Kafka, the topics, Flink, the gateways, Prometheus and Grafana", concat(COMPOSE, "up", "-d")),
                Step.of("wait until the job submission has finished", concat(COMPOSE, "wait", "submit")),
                Step.of("the demo against the three gateways", "./ckc", "demo", "--on", DEMO_GATEWAYS, "--credentials",
                        COMPOSE_CREDENTIALS),
                Step.cleanup("remove the stack and its volumes", concat(COMPOSE, "down", "-v")));
    }

    /** The operators, exactly as k8s/README.md installs them ({@code E2eCommandTest} holds them to it). */
    static final List<String> OPERATOR_INSTALL = List.of(
            "kubectl create namespace ckc",
            "kubectl create -f https://github.com/jetstack/cert-manager/releases/download/v1.18.2/cert-manager.yaml",
            "kubectl -n cert-manager wait deployment --all --for=condition=Available --timeout=300s",
            "helm repo add flink-operator-repo https://downloads.apache.org/flink/flink-kubernetes-operator-1.15.0/",
            "helm install flink-kubernetes-operator flink-operator-repo/flink-kubernetes-operator --version 1.15.0 "
                    + "--namespace ckc --set watchNamespaces={ckc} --wait",
            "helm install strimzi-cluster-operator oci://quay.io/strimzi-helm/strimzi-kafka-operator --version 1.2.0 "
                    + "--namespace ckc --wait",
            "helm repo add prometheus-community https://prometheus-community.github.io/helm-charts",
            "helm install kube-prometheus-stack prometheus-community/kube-prometheus-stack --version 88.0.0 "
                    + "--namespace monitoring --create-namespace --set grafana.sidecar.dashboards.searchNamespace=ALL --wait");

    static List<Step> kindSteps() {
        List<Step> steps = new ArrayList<>();
        steps.add(Step.of("a one-node kind cluster, UDP 5500-5502 mapped to the host",
                "kind", "create", "cluster", "--name", "ckc", "--config", "e2e/kind/cluster.yaml"));
        for (String target : List.of("jobs", "gateway")) {
            steps.add(Step.of("the " + target + " image", "docker", "build", "-f", "docker/Dockerfile", "--target", target,
                    "--build-arg", "MAVEN_ARGS=-DskipTests", "-t", "ckc-" + target + ":0.1.0", "."));
        }
        steps.add(Step.of("the images into the node", "kind", "load", "docker-image", "--name", "ckc",
                "ckc-jobs:0.1.0", "ckc-gateway:0.1.0"));
        for (String line : OPERATOR_INSTALL) {
            steps.add(new Step("as k8s/README.md installs", List.of(line.split(" ")), false));
        }
        steps.add(Step.of("the nodes' credential store, with the simulator's fleet", "./ckc", "credentials", "fleet",
                Stack.SIMULATOR_FLEET, "--store", KIND_CREDENTIALS, "--groupcast", "*"));
        steps.add(Step.of("the MQTT listeners' certificate", "./ckc", "credentials", "tls", ".ckc/kind-gateway.p12",
                "--password", "changeit"));
        steps.add(Step.of("the store and the certificate as the Secret the gateways mount", "kubectl", "-n", "ckc",
                "create", "secret", "generic", "ckc-credentials", "--from-file=credentials.json=" + KIND_CREDENTIALS,
                "--from-file=gateway.p12=.ckc/kind-gateway.p12", "--from-literal=tls-password=changeit"));
        steps.add(Step.of("Kafka, topics, the jobs, gateways, monitoring (the kind overlay of k8s/)",
                "kubectl", "apply", "-k", "e2e/kind"));
        steps.add(Step.of("wait for Kafka", "kubectl", "-n", "ckc", "wait", "kafka/ckc", "--for=condition=Ready",
                "--timeout=900s"));
        steps.add(Step.of("wait for the jobs", "kubectl", "-n", "ckc", "wait", "flinkdeployment", "--all",
                "--for=jsonpath={.status.jobStatus.state}=RUNNING", "--timeout=900s"));
        steps.add(Step.of("wait for the gateways", "kubectl", "-n", "ckc", "rollout", "status", "statefulset/gateway",
                "--timeout=600s"));
        steps.add(Step.of("the demo against the three gateways", "./ckc", "demo", "--on", DEMO_GATEWAYS, "--credentials",
                KIND_CREDENTIALS));
        steps.add(Step.cleanup("remove the cluster", "kind", "delete", "cluster", "--name", "ckc"));
        return steps;
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = new String[head.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    @Override
    public void run() {
        throw new Ckc.Failure("e2e takes compose or kind: ./ckc e2e --help");
    }

    abstract static class Run implements Callable<Integer> {
        @Option(names = "--dry-run", description = "Print the steps, run nothing.")
        boolean dryRun;

        abstract List<Step> steps();

        abstract List<String> tools();

        @Override
        public Integer call() {
            List<Step> steps = steps();
            if (dryRun) {
                steps.forEach(step -> System.out.println("# " + step.what() + (step.cleanup() ? " (always)" : "")
                        + "\n" + step.line()));
                return 0;
            }
            for (String tool : tools()) {
                if (!Home.onPath(tool)) {
                    throw new Ckc.Failure("e2e needs " + tool + " on the PATH: this runs where a container engine is "
                            + "(see .github/workflows/e2e.yml); ./ckc e2e ... --dry-run prints the steps");
                }
            }
            try {
                Ckc.runForOutput(List.of("docker", "info"));
            } catch (Ckc.Failure e) {
                throw new Ckc.Failure("e2e needs a running Docker engine, and docker info failed: this machine has "
                        + "none (./ckc e2e ... --dry-run prints the steps)");
            }
            int failed = 0;
            for (Step step : steps) {
                if (failed != 0 && !step.cleanup()) {
                    continue;
                }
                Ckc.say(step.what() + ": " + step.line());
                int exit = run(step);
                if (exit != 0 && failed == 0) {
                    Ckc.say("failed (exit " + exit + "): " + step.line());
                    failed = exit;
                }
            }
            return failed == 0 ? 0 : 1;
        }

        private static int run(Step step) {
            try {
                return new ProcessBuilder(step.command()).directory(Home.current().root.toFile()).inheritIO().start()
                        .waitFor();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Ckc.Failure("interrupted");
            }
        }
    }

    @Command(name = "compose", mixinStandardHelpOptions = true,
            description = "docker compose: build the images, start docker/compose.yaml, the demo against it, remove it.")
    static final class Compose extends Run {
        @Override
        List<Step> steps() {
            return composeSteps();
        }

        @Override
        List<String> tools() {
            return List.of("docker");
        }
    }

    @Command(name = "kind", mixinStandardHelpOptions = true,
            description = "A kind cluster: the images, the operators as k8s/README.md installs them, e2e/kind (k8s/ for "
                    + "one node), the demo, then the cluster removed.")
    static final class Kind extends Run {
        @Override
        List<Step> steps() {
            return kindSteps();
        }

        @Override
        List<String> tools() {
            return List.of("docker", "kind", "kubectl", "helm");
        }
    }
}
