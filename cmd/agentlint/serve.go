package main

import "github.com/spf13/cobra"

func (a *app) serveCmd() *cobra.Command { return &cobra.Command{Use: "serve", Hidden: true} }
