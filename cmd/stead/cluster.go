package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/bus"
)

// clusterFlags make the daemon's embedded bus a member of a NATS cluster.
type clusterFlags struct {
	KeyFile  string
	Listen   string
	Routes   []string
	Node     string
	Replicas int
	TLS      bus.ClusterTLS
}

func (c *clusterFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.KeyFile, "cluster-key", "", "make the embedded bus a member of the NATS cluster of this key file (stead serve cluster-key makes one; every member has a copy)")
	cmd.Flags().StringVar(&c.Listen, "cluster-listen", "", "with --cluster-key, the host:port the other members' routes connect to (e.g. 10.0.0.1:6222)")
	cmd.Flags().StringSliceVar(&c.Routes, "routes", nil, "with --cluster-key, the other members' route addresses, host:port (repeat or comma-separate)")
	cmd.Flags().StringVar(&c.Node, "node", "", "with --cluster-key, this member's name, unique in the cluster (default: the host name)")
	cmd.Flags().IntVar(&c.Replicas, "replicas", 0, "with --cluster-key, how many members keep each stream, 1 to 5 (default 3, or the cluster's size when smaller)")
	cmd.Flags().StringVar(&c.TLS.Cert, "cluster-tls-cert", "", "with --cluster-key, this member's certificate (PEM): the routes then use mutual TLS")
	cmd.Flags().StringVar(&c.TLS.Key, "cluster-tls-key", "", "with --cluster-tls-cert, its private key (PEM)")
	cmd.Flags().StringVar(&c.TLS.CA, "cluster-tls-ca", "", "with --cluster-tls-cert, the CA (PEM) that signed every member's certificate")
}

// cluster is the membership the flags ask for; nil without --cluster-key.
func (c *clusterFlags) cluster(bf BusFlags) (*bus.Cluster, error) {
	if c.KeyFile == "" {
		if c.Listen != "" || len(c.Routes) > 0 || c.Node != "" || c.Replicas != 0 || c.TLS != (bus.ClusterTLS{}) {
			return nil, flagErrorf("--cluster-listen, --routes, --node, --replicas and --cluster-tls-* need --cluster-key")
		}
		return nil, nil
	}
	if bf.URL != "" {
		return nil, flagErrorf("--cluster-key makes the embedded bus a cluster member; --nats-url uses an external one instead: not both")
	}
	if c.Listen == "" || len(c.Routes) == 0 {
		return nil, flagErrorf("--cluster-key needs --cluster-listen (where this member's routes listen) and --routes (the other members')")
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		return nil, flagErrorf("--replicas: %d is not between 1 and 5", c.Replicas)
	}
	key, err := bus.ReadClusterKey(c.KeyFile)
	if err != nil {
		return nil, err
	}
	cl := &bus.Cluster{Key: key, Node: c.Node, Listen: c.Listen, Routes: c.Routes, Replicas: c.Replicas}
	if c.TLS != (bus.ClusterTLS{}) {
		if c.TLS.Cert == "" || c.TLS.Key == "" || c.TLS.CA == "" {
			return nil, flagErrorf("route TLS needs --cluster-tls-cert, --cluster-tls-key and --cluster-tls-ca")
		}
		t := c.TLS
		cl.TLS = &t
	}
	return cl, nil
}

func newServeClusterKeyCmd(f *Factory) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "cluster-key FILE",
		Short: "Make the key of a new stead cluster: copy it to every member, then stead serve --cluster-key FILE",
		Long: `Make the key of a new stead cluster and write it to FILE (mode 0600; an existing
file is never replaced). The key holds the cluster's name, the password its
members' routes give each other, and the nkey its clients sign in with. Copy
it to every machine of the cluster, readable by the user stead runs as only:
anyone holding it can join the cluster and read every run.`,
		Example: `  # A key for a cluster named prod
  stead serve cluster-key ~/.config/stead/cluster.key --name prod
  # Then on each of three machines (10.0.0.1 shown)
  stead serve --cluster-key ~/.config/stead/cluster.key --cluster-listen 10.0.0.1:6222 \
    --routes 10.0.0.2:6222,10.0.0.3:6222`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := bus.NewClusterKey(name)
			if err != nil {
				return flagErrorf("%v", err)
			}
			if err := bus.WriteClusterKey(args[0], key); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.ErrOut, "stead: wrote the key of cluster %q to %s: copy it to every member, mode 0600\n", name, args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "stead", "the cluster's name")
	return cmd
}
