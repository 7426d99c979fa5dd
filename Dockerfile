# syntax=docker/dockerfile:1
#
# vaultgraph's container image: the static release binary on distroless,
# running as a non-root user, built for any platform by the release build's
# own script (scripts/dist). docs/CONTAINER.md says how to run it and what of
# it was checked without a Docker engine.
#
#   docker buildx build --platform linux/amd64,linux/arm64 \
#     --build-arg VERSION=v0.1.0 -t ghcr.io/vaultgraph/vaultgraph:0.1.0 .
#
# Without VERSION the version comes from the VERSION file and the commit from
# the .git folder of the build context, as for make dist.

FROM --platform=$BUILDPLATFORM golang:1.26.8-bookworm AS build
ARG TARGETOS=linux
ARG TARGETARCH=amd64
ARG VERSION=
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The same build as a release archive's binary: CGO off (static), -trimpath,
# no build ID, the version set at link time.
RUN go run ./scripts/dist -binaries-only -out /out -targets "${TARGETOS}/${TARGETARCH}" ${VERSION:+-version "$VERSION"} \
 && mkdir -p /rootfs/vault /rootfs/state \
 && cp "/out/bin/${TARGETOS}_${TARGETARCH}/vaultgraph" /rootfs/vaultgraph

# distroless/static: CA certificates, /etc/passwd with the nonroot user
# (65532), tzdata, nothing else: no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.title="vaultgraph" \
      org.opencontainers.image.description="A markdown vault as a knowledge graph over MCP" \
      org.opencontainers.image.source="https://github.com/vaultgraph/vaultgraph" \
      org.opencontainers.image.documentation="https://github.com/vaultgraph/vaultgraph/blob/main/docs/CONTAINER.md" \
      io.modelcontextprotocol.server.name="io.github.vaultgraph/vaultgraph"
# The binary is root-owned and read-only to the user that runs it; the
# vault and state mount points belong to that user, so named volumes start
# out writable by it.
COPY --from=build --chown=0:0 --chmod=0755 /rootfs/vaultgraph /vaultgraph
COPY --from=build --chown=65532:65532 /rootfs/vault /vault
COPY --from=build --chown=65532:65532 /rootfs/state /state
USER 65532:65532
ENV VAULTGRAPH_VAULT=/vault \
    VAULTGRAPH_STATE_DIR=/state
VOLUME ["/vault", "/state"]
EXPOSE 8080
# /healthz through the binary itself (no curl in the image); with no
# VAULTGRAPH_HTTP_ADDR (stdio, or a sync --watch worker) it reports healthy.
HEALTHCHECK --interval=30s --timeout=10s --start-period=2m --retries=3 CMD ["/vaultgraph", "health"]
ENTRYPOINT ["/vaultgraph"]
# stdio by default (docker run -i, as the MCP registry entry runs it); set
# VAULTGRAPH_HTTP_ADDR=0.0.0.0:8080 and VAULTGRAPH_HTTP_TOKENS to serve HTTP.
CMD ["serve"]
