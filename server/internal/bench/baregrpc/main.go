// Command baregrpc is the P5 anchor: a bare grpc-go server on a Unix socket that prints one
// line when ready, so the daemon's start-up and idle memory are compared with the minimum.
package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
)

func main() {
	sock := os.Args[1]
	_ = os.Remove(sock)
	lis, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	g := grpc.NewServer()
	go func() { _ = g.Serve(lis) }()
	fmt.Printf("{\"address\":\"unix://%s\"}\n", sock)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	<-ch
	g.Stop()
}
