import { Module } from '@nestjs/common';
import { locateWebAssets } from './web-assets';
import { WebController } from './web.controller';
import { WEB_ASSETS } from './web.tokens';

/** The dashboard at "/" (static files built into dist/web). */
@Module({ controllers: [WebController], providers: [{ provide: WEB_ASSETS, useFactory: locateWebAssets }] })
export class WebModule {}
