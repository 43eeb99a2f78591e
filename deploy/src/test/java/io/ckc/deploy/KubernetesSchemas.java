package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.gson.JsonParser;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1StatefulSet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Validates Kubernetes resources offline, as {@code kubectl apply --validate=strict} would against a
 * cluster: custom resources against the vendored CRDs' {@code openAPIV3Schema} (k8s/crds/), with
 * unknown fields refused where the schema does not preserve them; core kinds with the models of the
 * official Kubernetes Java client, which refuse unknown fields and missing required ones.
 */
final class KubernetesSchemas {

    /** The core kinds CKC's manifests use, by apiVersion/kind. */
    private static final Map<String, CoreValidator> CORE = Map.of(
            "apps/v1/StatefulSet", V1StatefulSet::validateJsonElement,
            "v1/Service", V1Service::validateJsonElement,
            "v1/ConfigMap", V1ConfigMap::validateJsonElement,
            "v1/Secret", V1Secret::validateJsonElement,
            "v1/Namespace", V1Namespace::validateJsonElement,
            "v1/PersistentVolumeClaim", V1PersistentVolumeClaim::validateJsonElement,
            "batch/v1/Job", io.kubernetes.client.openapi.models.V1Job::validateJsonElement);

    private interface CoreValidator {
        void validate(com.google.gson.JsonElement json) throws IOException;
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Map<String, Schema> custom = new HashMap<>();

    /** The schemas of every CRD in the given files, by apiVersion/kind. */
    KubernetesSchemas(List<Path> crdFiles) throws IOException {
        SchemaRegistry factory = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4);
        for (Path file : crdFiles) {
            for (JsonNode crd : ProjectFiles.documents(Files.readString(file))) {
                if (!"CustomResourceDefinition".equals(crd.path("kind").asText())) {
                    continue;
                }
                String group = crd.at("/spec/group").asText();
                String kind = crd.at("/spec/names/kind").asText();
                for (JsonNode version : crd.at("/spec/versions")) {
                    JsonNode schema = strict(version.at("/schema/openAPIV3Schema").deepCopy());
                    custom.put(group + "/" + version.get("name").asText() + "/" + kind, factory.getSchema(schema));
                }
            }
        }
    }

    /** What is wrong with a resource; empty when it is valid. */
    List<String> problems(JsonNode resource) throws IOException {
        String type = resource.path("apiVersion").asText() + "/" + resource.path("kind").asText();
        List<String> problems = new ArrayList<>();
        if (resource.at("/metadata/name").asText().isEmpty()) {
            problems.add(type + ": no metadata.name");
        }
        Schema schema = custom.get(type);
        CoreValidator core = CORE.get(type);
        if (schema != null) {
            // Why: the API server checks apiVersion, kind and metadata itself; some CRD schemas leave them out.
            ObjectNode withoutMetadata = resource.deepCopy();
            withoutMetadata.remove(List.of("apiVersion", "kind", "metadata"));
            for (Error error : schema.validate(withoutMetadata)) {
                problems.add(type + " " + resource.at("/metadata/name").asText() + ": " + error);
            }
        } else if (core != null) {
            try {
                core.validate(JsonParser.parseString(JSON.writeValueAsString(resource)));
            } catch (IllegalArgumentException | IOException e) {
                problems.add(type + " " + resource.at("/metadata/name").asText() + ": " + e.getMessage());
            }
        } else {
            problems.add(type + ": no schema for this kind (add its CRD to k8s/crds or its model here)");
        }
        return problems;
    }

    /**
     * A CRD schema that refuses unknown fields: an object with declared properties and no
     * {@code x-kubernetes-preserve-unknown-fields} gets {@code additionalProperties: false}, as the
     * API server's strict field validation treats it.
     */
    static JsonNode strict(JsonNode schema) {
        if (schema.isObject()) {
            ObjectNode object = (ObjectNode) schema;
            if (object.has("properties") && !object.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
                    && !object.has("additionalProperties")) {
                object.put("additionalProperties", false);
            }
            for (String keyword : Set.of("properties", "patternProperties")) {
                if (object.has(keyword)) {
                    object.get(keyword).forEach(KubernetesSchemas::strict);
                }
            }
            for (String keyword : Set.of("items", "additionalProperties", "not")) {
                if (object.has(keyword) && object.get(keyword).isObject()) {
                    strict(object.get(keyword));
                }
            }
            for (String keyword : Set.of("allOf", "anyOf", "oneOf")) {
                if (object.has(keyword)) {
                    object.get(keyword).forEach(KubernetesSchemas::strict);
                }
            }
        }
        return schema;
    }
}
