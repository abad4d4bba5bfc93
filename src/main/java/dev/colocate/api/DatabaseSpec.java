package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.SecretKeySelector;

/** A MariaDB/MySQL database that Slurm writes to: slurmdbd's accounting store, or jobcomp/mysql. */
public class DatabaseSpec {

    @JsonPropertyDescription("Host name of the database server.")
    @Required
    private String host;

    @JsonPropertyDescription("TCP port of the database server.")
    @Min(1)
    @Max(65535)
    private int port = 3306;

    @JsonPropertyDescription("Database user.")
    @Required
    private String user;

    @JsonPropertyDescription("Database name (StorageLoc, JobCompLoc); Slurm's default when unset.")
    private String database;

    @JsonPropertyDescription("The key of a Secret in the cluster's namespace that holds the password. It reaches "
            + "the daemon as an environment variable, never a ConfigMap.")
    @Required
    private SecretKeySelector passwordSecretRef;

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public int getPort() {
        return port;
    }

    public void setPort(int port) {
        this.port = port;
    }

    public String getUser() {
        return user;
    }

    public void setUser(String user) {
        this.user = user;
    }

    public String getDatabase() {
        return database;
    }

    public void setDatabase(String database) {
        this.database = database;
    }

    public SecretKeySelector getPasswordSecretRef() {
        return passwordSecretRef;
    }

    public void setPasswordSecretRef(SecretKeySelector passwordSecretRef) {
        this.passwordSecretRef = passwordSecretRef;
    }
}
