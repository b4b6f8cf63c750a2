# clapper in a container: Debian bookworm with Chromium, its headless shell,
# ffmpeg and the fonts of .ci/debian-packages, installed as make setup
# installs them; clapper runs as an unprivileged user with Chromium's
# sandbox on. docs/CONTAINER.md says how to build and run it, and what it
# needs at run time (user namespaces for the sandbox, memory, /dev/shm).
#
#   docker build -t clapper --build-arg VERSION="$(git describe --tags --always --dirty)" .
#   docker run --rm --security-opt seccomp=unconfined -v "$PWD:/work" clapper doctor

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The build context holds no repository to read a version from: VERSION
# names the build (clapper --version, and the tool every take records).
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.releaseVersion=${VERSION}" -o /out/clapper ./cmd/clapper

FROM debian:bookworm-slim
COPY .ci/debian-packages .ci/install-packages /tmp/setup/
RUN /tmp/setup/install-packages \
 && rm -rf /var/lib/apt/lists/* /tmp/setup
RUN useradd --create-home --uid 10001 --user-group clapper
COPY --from=build /out/clapper /usr/local/bin/clapper
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["clapper"]
CMD ["doctor"]
