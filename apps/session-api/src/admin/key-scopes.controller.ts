import { Controller, Get, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { allows, type AuthenticatedRequest, RequireScope, type Scope } from '#platform';
import { ApiRoute } from '../docs/api-route.decorator.js';
import { keyScopesAnswer } from './key-scopes.schemas.js';

const SCOPES: readonly Scope[] = ['ingest', 'read', 'admin'];

/**
 * `GET /v1/key`: the scopes of the key the request carries (never the key), so the dashboard can check a
 * key at sign-in and hide what a `read` key may not do instead of letting each button fail with a 403.
 */
@ApiTags('access')
@ApiBearerAuth()
@Controller('v1/key')
export class KeyScopesController {
  @ApiRoute({ summary: 'The scopes of the key this request carries (never the key)', description: 'The dashboard checks a key with it at sign-in.', ok: keyScopesAnswer })
  @Get()
  @RequireScope('read')
  scopes(@Req() request: AuthenticatedRequest): { scopes: Scope[] } {
    const key = request.apiKey;
    return { scopes: key ? SCOPES.filter((scope) => allows(key, scope)) : [] };
  }
}
