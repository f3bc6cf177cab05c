// The github-script stand-in's program (see action.yml): Node's own fetch, no packages.
"use strict";
const fs = require("node:fs");

const input = (name) => (process.env[`INPUT_${name.toUpperCase()}`] || "").trim();
const api = process.env.GITHUB_API_URL;
const token = input("github-token");

// Workflow commands, as @actions/core writes them.
const escapeData = (text) =>
  String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const core = {
  info: (message) => console.log(String(message)),
  warning: (message) => console.log(`::warning::${escapeData(message)}`),
  error: (message) => console.log(`::error::${escapeData(message)}`),
  setFailed: (message) => {
    process.exitCode = 1;
    console.log(`::error::${escapeData(message)}`);
  },
  setOutput: (name, value) => {
    const delimiter = `ghadelimiter_${Math.random().toString(36).slice(2)}`;
    fs.appendFileSync(process.env.GITHUB_OUTPUT, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
  },
};

async function request(method, path, body) {
  const response = await fetch(api + path, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      Accept: "application/vnd.github+json",
      "Content-Type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error(`${method} ${path}: ${response.status} ${(data || {}).message}`);
    error.status = response.status;
    throw error;
  }
  return { status: response.status, data, headers: Object.fromEntries(response.headers) };
}

const repos = ({ owner, repo }) => `/repos/${owner}/${repo}`;
const query = (params) => new URLSearchParams(params).toString();
const github = {
  rest: {
    pulls: {
      get: (o) => request("GET", `${repos(o)}/pulls/${o.pull_number}`),
    },
    checks: {
      create: ({ owner, repo, ...body }) => request("POST", `${repos({ owner, repo })}/check-runs`, body),
      update: ({ owner, repo, check_run_id, ...body }) =>
        request("PATCH", `${repos({ owner, repo })}/check-runs/${check_run_id}`, body),
    },
    issues: {
      listComments: (o) =>
        request("GET", `${repos(o)}/issues/${o.issue_number}/comments?` +
          query({ per_page: o.per_page || 30, page: o.page || 1 })),
      createComment: (o) =>
        request("POST", `${repos(o)}/issues/${o.issue_number}/comments`, { body: o.body }),
      updateComment: (o) =>
        request("PATCH", `${repos(o)}/issues/comments/${o.comment_id}`, { body: o.body }),
    },
  },
  // Every page, following the Link header as Octokit's paginate does.
  paginate: async (method, params) => {
    const items = [];
    for (let page = 1; ; page += 1) {
      const { data, headers } = await method({ ...params, page });
      items.push(...data);
      if (!/rel="next"/.test(headers.link || "")) return items;
    }
  },
};
github.rest = new Proxy(github.rest, {
  get: (target, name) => {
    if (!(name in target)) throw new Error(`github.rest.${String(name)}: not in the stand-in`);
    return target[name];
  },
});

const [owner, repo] = process.env.GITHUB_REPOSITORY.split("/");
const context = {
  repo: { owner, repo },
  payload: JSON.parse(fs.readFileSync(process.env.GITHUB_EVENT_PATH, "utf8")),
  eventName: process.env.GITHUB_EVENT_NAME,
  sha: process.env.GITHUB_SHA,
  ref: process.env.GITHUB_REF,
  runId: Number(process.env.GITHUB_RUN_ID),
};

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
const run = new AsyncFunction("require", "github", "context", "core", "process", input("script"));
run(require, github, context, core, process).then(
  (result) => {
    if (result === undefined) return;
    const encoded = input("result-encoding") === "string" ? String(result) : JSON.stringify(result);
    core.setOutput("result", encoded);
  },
  (error) => core.setFailed(`Unhandled error: ${error}`),
);
