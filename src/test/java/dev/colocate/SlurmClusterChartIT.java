package dev.colocate;

import static dev.colocate.testing.Charts.SLURM_CLUSTER;
import static dev.colocate.testing.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import dev.colocate.api.DatabaseSpec;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import dev.colocate.operator.model.ConfFile;
import dev.colocate.operator.model.OperatorDefaults;
import dev.colocate.operator.model.SlurmFiles;
import dev.colocate.operator.model.SpecProblems;
import dev.colocate.testing.Charts.Rendered;
import dev.colocate.testing.ValuesComments;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * helm/slurm-cluster rendered by real Helm (helm-java): ACK's ack-slurm-cluster values become one SlurmCluster that
 * the CRD model reads field by field and the operator's own checks accept, and the keys stay in Secrets.
 */
class SlurmClusterChartIT {

    /** ACK's guide's sample values, as an ACK user brings them. */
    private static final Path ACK_VALUES = Path.of("src", "test", "resources", "ack-slurm-cluster-values.yaml");
    private static final String RELEASE = "colocate";
    private static final String KEEP = "helm.sh/resource-policy";

    /** Fails on a field the CRD model does not know, so that a misspelt or invented field fails the test. */
    private static final ObjectMapper STRICT = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    @TempDir
    Path temp;

    private static SlurmCluster onlySlurmCluster(List<Rendered> objects) {
        List<Rendered> clusters = objects.stream().filter(o -> o.kind().equals("SlurmCluster")).toList();
        assertThat(clusters).hasSize(1);
        Rendered rendered = clusters.get(0);
        assertThat(rendered.object().getApiVersion()).isEqualTo("colocate.dev/v1alpha1");
        try {
            return STRICT.readValue(rendered.yaml(), SlurmCluster.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Object> yaml(Path file) throws IOException {
        return STRICT.readValue(file.toFile(), Map.class);
    }

    private static Map<String, String> ackFiles() throws IOException {
        return (Map<String, String>) ((Map<String, Object>) yaml(ACK_VALUES).get("slurmConfigs"))
                .get("filesInConfigMap");
    }

    /** What the operator would refuse of the cluster: the problems ConfigValid=False would list. */
    private static List<String> operatorProblems(SlurmCluster cluster) {
        List<String> problems = new ArrayList<>(SpecProblems.of(cluster, new OperatorDefaults("slurm:22.05",
                "cluster.local")));
        problems.addAll(SlurmFiles.render(cluster, "-- job_submit.lua\n").problems());
        return problems;
    }

    private static String setting(String conf, String key) {
        return ConfFile.parse("slurm.conf", conf).lines().stream()
                .filter(l -> l.include() == null)
                .flatMap(l -> l.settings().stream())
                .filter(s -> s.is(key)).map(ConfFile.Setting::value)
                .reduce((a, b) -> b).orElse(null);
    }

    private static List<Secret> secrets(List<Rendered> objects) {
        return objects.stream().filter(o -> o.kind().equals("Secret")).map(o -> o.as(Secret.class)).toList();
    }

    /** The guide's values as an ACK user fills them in: a database for slurmdbd and for jobcomp/mysql. */
    private Path ackValuesWithDatabases(String host, String password) throws IOException {
        String values = Files.readString(ACK_VALUES)
                .replace("StorageHost=\n", "StorageHost=" + host + "\n")
                .replace("StoragePass=\n", "StoragePass=" + password + "\n")
                .replace("JobCompHost=\n", "JobCompHost=" + host + "\n")
                .replace("JobCompPass=\n", "JobCompPass=" + password + "\n");
        assertThat(values).contains("StorageHost=" + host, "JobCompPass=" + password);
        Path file = temp.resolve("ack-filled-values.yaml");
        Files.writeString(file, values);
        return file;
    }

    @Test
    void lintsCleanUnderStrict() {
        LintResult lint = new Helm(SLURM_CLUSTER).lint().strict().call();

        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
    }

    @Test
    void defaultsRenderOneSlurmClusterThatTheOperatorAccepts() throws IOException {
        SlurmCluster cluster = onlySlurmCluster(render(SLURM_CLUSTER, Map.of()));

        Map<String, Object> defaults = yaml(SLURM_CLUSTER.resolve("values.yaml"));
        List<Map<String, Object>> groups = (List<Map<String, Object>>) defaults.get("workerGroupSpecs");
        assertThat(cluster.getMetadata().getName()).isEqualTo(RELEASE);
        assertThat(cluster.getSpec().getWorkerGroupSpecs()).extracting(WorkerGroupSpec::getGroupName)
                .containsExactlyElementsOf(groups.stream().map(g -> (String) g.get("groupName")).toList());
        assertThat(cluster.getSpec().getSlurmConfigs().getFilesInConfigMap()).containsKeys("gres.conf",
                "slurm.conf", "slurmdbd.conf");
        assertThat(operatorProblems(cluster)).isEmpty();
    }

    @Test
    void ackSampleValuesCarryOverIntoASlurmClusterThatTheOperatorAccepts() throws IOException {
        List<Rendered> objects = render(SLURM_CLUSTER, List.of(ACK_VALUES), Map.of(), List.of());
        SlurmCluster cluster = onlySlurmCluster(objects);

        Map<String, Object> ack = yaml(ACK_VALUES);
        List<Map<String, Object>> ackGroups = (List<Map<String, Object>>) ack.get("workerGroupSpecs");
        assertThat(cluster.getSpec().getWorkerGroupSpecs()).hasSameSizeAs(ackGroups);
        for (int i = 0; i < ackGroups.size(); i++) {
            WorkerGroupSpec group = cluster.getSpec().getWorkerGroupSpecs().get(i);
            Map<String, Object> ackGroup = ackGroups.get(i);
            assertThat(group.getGroupName()).isEqualTo(ackGroup.get("groupName"));
            assertThat(group.getReplicas()).isEqualTo(ackGroup.get("replicas"));
            assertThat(group.getImage()).isEqualTo(ackGroup.get("image"));
            Map<String, Map<String, Object>> resources = (Map<String, Map<String, Object>>) ackGroup.get("resources");
            assertThat(group.getResources().getLimits().get("cpu").toString())
                    .isEqualTo(String.valueOf(resources.get("limits").get("cpu")));
            assertThat(group.getNodeSelector()).isEqualTo(ackGroup.get("nodeSelector"));
            assertThat(group.getPodSecurityContext().getRunAsUser()).isEqualTo(
                    ((Number) ((Map<String, Object>) ackGroup.get("podSecurityContext")).get("runAsUser")).longValue());
            // ACK's workers name no memory, which slurm.conf needs to describe the node
            assertThat(group.getResources().getRequests()).containsKey("memory");
        }
        assertThat(cluster.getSpec().getHeadNodeConfig().getAffinity().getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()).hasSize(1);

        String slurmConf = cluster.getSpec().getSlurmConfigs().getFilesInConfigMap().get("slurm.conf");
        assertThat(setting(slurmConf, "GresTypes")).isEqualTo("k8scpu,k8smemory");
        assertThat(slurmConf).doesNotContain("k8s_resources", "k8s_resource_completion", "/var/jwt");
        assertThat(cluster.getSpec().getSlurmConfigs().getFilesInConfigMap()).containsEntry("gres.conf",
                ackFiles().get("gres.conf"));
        assertThat(setting(cluster.getSpec().getSlurmConfigs().getFilesInConfigMap().get("slurmdbd.conf"),
                "LogFile")).isEqualTo("/var/log/slurmdbd.log");

        String notes = cluster.getMetadata().getAnnotations().get("colocate.dev/chart-notes");
        assertThat(notes).contains("NodeFeaturesPlugins", "holds", "JobSubmitPlugins", "job_submit.lua",
                "AuthAltParameters");
        assertThat(operatorProblems(cluster)).isEmpty();
    }

    @Test
    void ackDatabaseSettingsBecomeTheSpecsDatabasesWithThePasswordsInASecret() throws IOException {
        String host = "mariadb.db.svc";
        String password = "pw-" + System.nanoTime();
        List<Rendered> objects = render(SLURM_CLUSTER, List.of(ackValuesWithDatabases(host, password)), Map.of(),
                List.of());
        SlurmCluster cluster = onlySlurmCluster(objects);

        String ackSlurmConf = ackFiles().get("slurm.conf");
        String ackDbdConf = ackFiles().get("slurmdbd.conf");
        DatabaseSpec accounting = cluster.getSpec().getAccounting();
        assertThat(accounting.getHost()).isEqualTo(host);
        assertThat(accounting.getPort()).isEqualTo(Integer.parseInt(setting(ackDbdConf, "StoragePort")));
        assertThat(accounting.getUser()).isEqualTo(setting(ackDbdConf, "StorageUser"));
        DatabaseSpec jobComp = cluster.getSpec().getJobComp();
        assertThat(jobComp.getHost()).isEqualTo(host);
        assertThat(jobComp.getPort()).isEqualTo(Integer.parseInt(setting(ackSlurmConf, "JobCompPort")));
        assertThat(jobComp.getUser()).isEqualTo(setting(ackSlurmConf, "JobCompUser"));

        // what the operator then writes into slurm.conf
        assertThat(operatorProblems(cluster)).isEmpty();
        String rendered = SlurmFiles.render(cluster, "").files().get("slurm.conf");
        assertThat(setting(rendered, "AccountingStorageHost")).isEqualTo(setting(ackSlurmConf,
                "AccountingStorageHost"));
        assertThat(setting(rendered, "JobCompType")).isEqualTo(setting(ackSlurmConf, "JobCompType"));
        assertThat(setting(rendered, "JobCompHost")).isEqualTo(host);

        // the passwords are in the Secret the spec points at, and nowhere else
        for (DatabaseSpec db : List.of(accounting, jobComp)) {
            Secret secret = secrets(objects).stream()
                    .filter(s -> s.getMetadata().getName().equals(db.getPasswordSecretRef().getName())).findFirst()
                    .orElseThrow(() -> new AssertionError("no Secret " + db.getPasswordSecretRef().getName()));
            assertThat(new String(Base64.getDecoder().decode(secret.getData().get(db.getPasswordSecretRef()
                    .getKey())), StandardCharsets.UTF_8)).isEqualTo(password);
        }
        assertThat(objects).filteredOn(o -> !o.kind().equals("Secret"))
                .allSatisfy(o -> assertThat(o.yaml()).doesNotContain(password));
    }

    @Test
    void theReadmeTableSaysWhatTheValuesCommentsSay() throws IOException {
        // the table is helm-docs' rendering of the # -- comments; it must not drift from them
        Map<String, String> comments = ValuesComments.of(
                Files.readString(SLURM_CLUSTER.resolve("values.yaml")));
        Map<String, String> table = ValuesComments.readmeTable(
                Files.readString(SLURM_CLUSTER.resolve("README.md")));
        assertThat(comments).hasSizeGreaterThan(50);
        assertThat(table).containsExactlyInAnyOrderEntriesOf(comments);
    }

    @Test
    void keysAreSecretsNeverConfigMaps() {
        List<Rendered> objects = render(SLURM_CLUSTER, List.of(ACK_VALUES), Map.of(), List.of());
        SlurmCluster cluster = onlySlurmCluster(objects);

        assertThat(objects).noneMatch(o -> o.kind().equals("ConfigMap"));
        List<String> keys = secrets(objects).stream().flatMap(s -> s.getData().values().stream()).toList();
        assertThat(keys).isNotEmpty();
        assertThat(objects).filteredOn(o -> !o.kind().equals("Secret"))
                .allSatisfy(o -> assertThat(o.yaml()).doesNotContain(keys.toArray(String[]::new)));
        // ACK mounts the JWT key from its ConfigMap "jwt"; here every such volume is the JWT Secret
        List<Volume> volumes = Stream.concat(Stream.of(cluster.getSpec().getHeadNodeConfig(),
                cluster.getSpec().getSlurmdbdConfigs(), cluster.getSpec().getSlurmrestdConfigs()),
                cluster.getSpec().getWorkerGroupSpecs().stream())
                .flatMap(c -> c.getVolumes().stream()).toList();
        assertThat(volumes).isNotEmpty().allSatisfy(v -> {
            assertThat(v.getConfigMap()).isNull();
            assertThat(v.getSecret().getSecretName()).isEqualTo(cluster.jwtSecretName());
        });
        assertThat(secrets(objects)).extracting(s -> s.getMetadata().getName()).contains(cluster.jwtSecretName(),
                cluster.mungeSecretName());
    }

    @Test
    void generatedKeysAreKeptAndReusedOnUpgrade() {
        List<Secret> installed = secrets(render(SLURM_CLUSTER, Map.of()));
        List<Secret> otherInstall = secrets(render(SLURM_CLUSTER, Map.of()));

        assertThat(installed).extracting(s -> s.getMetadata().getName())
                .containsExactlyInAnyOrder(RELEASE + "-munge-key", RELEASE + "-jwt-key");
        assertThat(installed).allSatisfy(s -> {
            assertThat(s.getMetadata().getAnnotations()).containsEntry(KEEP, "keep");
            assertThat(s.getData()).isNotEmpty().allSatisfy((file, key) -> assertThat(key).isNotBlank());
        });
        assertThat(installed.get(0).getData()).isNotEqualTo(otherInstall.get(0).getData());

        List<HasMetadata> existing = installed.stream().map(s -> (HasMetadata) new SecretBuilder(s)
                .editMetadata().withNamespace(RELEASE).endMetadata().build()).toList();
        List<Secret> upgraded = secrets(render(SLURM_CLUSTER, List.of(), Map.of(), existing));

        assertThat(upgraded).extracting(Secret::getData)
                .containsExactlyInAnyOrderElementsOf(installed.stream().map(Secret::getData).toList());
    }

    @Test
    void refusesAValueOfTheWrongTypeNamingIt() throws IOException {
        Path values = temp.resolve("wrong-type.yaml");
        Files.writeString(values, "workerGroupSpecs:\n  - groupName: cpu\n    replicas: two\n");

        assertThatThrownBy(() -> render(SLURM_CLUSTER, List.of(values), Map.of(), List.of()))
                .hasMessageContaining("workerGroupSpecs").hasMessageContaining("replicas");
    }

    @Test
    void refusesAnUnknownTopLevelKeyNamingIt() throws IOException {
        Path values = temp.resolve("typo.yaml");
        Files.writeString(values, "headNodeConfg:\n  image: slurm:22.05\n");

        assertThatThrownBy(() -> render(SLURM_CLUSTER, List.of(values), Map.of(), List.of()))
                .hasMessageContaining("headNodeConfg");
    }
}
