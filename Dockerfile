# goldgate's GitHub Action image: `goldgate action` under tini, from a pinned base and a
# pinned lock of runtime dependencies. Needs BuildKit (the default `docker build` on GitHub's
# runners) for the secret mounts below.
#
# BASE is python:3.11-slim pinned by digest (the multi-arch index). Refresh it with
# `docker buildx imagetools inspect python:3.11-slim` and update the digest here. Any Debian-
# like base with python3 (and the venv module) works instead, e.g. one made offline with
#   mmdebstrap --variant=essential --include=python3,python3-venv,tini \
#     --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr bookworm base.tar
#   docker import base.tar goldgate-base:local
#   docker build --build-arg BASE=goldgate-base:local .
# which is how tests/app/action/test_container.py builds it where no registry is reachable.
#
# Behind a TLS-intercepting proxy or with a private index, hand pip its CA bundle and the
# index URL (a file holding it: it may carry credentials) as build secrets. They are mounted
# for one RUN and are in no layer of any stage:
#   docker build --network host --secret id=pip_cert,src=/etc/ssl/certs/ca-certificates.crt \
#     --secret id=pip_index_url,src=/path/to/index-url-file .
ARG BASE=python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7

FROM ${BASE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /build
COPY docker/ docker/
COPY pyproject.toml README.md LICENSE ./
COPY src/ src/
# A throwaway tool environment builds goldgate's wheel (setuptools pinned, no build isolation,
# so nothing unpinned is fetched), then installs the locked dependencies (wheels only: no
# compiler, nothing compiled) and the wheel, without pip, into /opt/goldgate. Both locks pin
# every file by its sha256 (--require-hashes: a file the index swapped is refused); goldgate's
# own wheel, built here from this source, is installed from that folder alone (--no-index).
# `pip check` proves the lock is complete.
RUN --mount=type=secret,id=pip_cert,required=false \
    --mount=type=secret,id=pip_index_url,required=false \
    set -eu; \
    if [ -s /run/secrets/pip_cert ]; then export PIP_CERT=/run/secrets/pip_cert; fi; \
    if [ -s /run/secrets/pip_index_url ]; then \
        PIP_INDEX_URL="$(cat /run/secrets/pip_index_url)"; export PIP_INDEX_URL; \
    fi; \
    python3 -m venv /opt/tools; \
    /opt/tools/bin/pip install --quiet --only-binary=:all: --require-hashes \
        -r docker/build-requirements.lock; \
    /opt/tools/bin/pip wheel --quiet --no-deps --no-build-isolation --wheel-dir /build/wheels .; \
    python3 -m venv --without-pip /opt/goldgate; \
    /opt/tools/bin/pip --python /opt/goldgate/bin/python install --quiet --no-deps \
        --only-binary=:all: --require-hashes -r docker/requirements.lock; \
    /opt/tools/bin/pip --python /opt/goldgate/bin/python install --quiet --no-deps --no-index \
        /build/wheels/goldgate-*.whl; \
    /opt/tools/bin/pip --python /opt/goldgate/bin/python check; \
    /opt/goldgate/bin/goldgate --version

FROM ${BASE}
# tini is PID 1: it forwards SIGINT and SIGTERM (what cancelling a job sends) to goldgate and
# reaps the orphans of killed command targets. Debian-based bases that lack it get Debian's.
RUN set -eu; \
    if ! command -v tini >/dev/null 2>&1; then \
        apt-get update; \
        apt-get install -y --no-install-recommends tini; \
        rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb; \
    fi; \
    tini --version; \
    if ! grep -q '^goldgate:' /etc/group; then echo 'goldgate:x:1001:' >> /etc/group; fi; \
    if ! grep -q '^goldgate:' /etc/passwd; then \
        echo 'goldgate:x:1001:1001:goldgate:/github/home:/usr/sbin/nologin' >> /etc/passwd; \
    fi
COPY --from=build /opt/goldgate /opt/goldgate
ENV PATH=/opt/goldgate/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
# Not root: uid 1001 is the `runner` user that owns the workspace on GitHub-hosted runners, so
# goldgate can write reports there and later steps (upload-artifact, a shell) can read them:
# reports are 0600 in 0700 folders, which a root-owned file would keep from the runner user.
# On a self-hosted runner whose user has another uid, run the goldgate package in a plain
# step instead (see the README's "GitHub Action" section).
USER 1001:1001
WORKDIR /github/workspace
ENTRYPOINT ["tini", "--", "goldgate"]
CMD ["--help"]
