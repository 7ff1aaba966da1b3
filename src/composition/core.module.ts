import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig, APP_CONFIG } from '../config/app-config';
import { Clock, SystemClock } from '../common/clock';
import { Ids, RandomIds } from '../common/ids';
import { OutboundHttp } from '../common/outbound-http';
import { UrlSigner } from '../modules/storage/application/url-signer';
import { createObjectStorage } from '../modules/storage/object-storage.factory';
import { ObjectStorage } from '../modules/storage/ports/object-storage';
import { AddressPolicy } from '../infrastructure/net/address-policy';
import { OutboundHttpClient } from '../infrastructure/net/outbound-http.client';
import { INSTANCE_SECRETS, InstanceSecrets } from '../infrastructure/secrets/instance-secrets';
import { UnitOfWork } from '../common/unit-of-work';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TypeOrmUnitOfWork } from '../infrastructure/database/typeorm.unit-of-work';
import { typeOrmScopeOf } from './typeorm.transaction-scope';

/** Process-wide singletons every module may use: configuration, secrets, clock, storage, the outbound client. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, secrets: InstanceSecrets): DynamicModule {
    const signer = new UrlSigner(secrets.urlSigningSecret, secrets.previousUrlSigningSecrets);
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: INSTANCE_SECRETS, useValue: secrets },
        { provide: Clock, useClass: SystemClock },
        { provide: Ids, useClass: RandomIds },
        { provide: UnitOfWork, inject: [getDataSourceToken()], useFactory: (dataSource: DataSource) => new TypeOrmUnitOfWork(dataSource, typeOrmScopeOf) },
        { provide: UrlSigner, useValue: signer },
        { provide: ObjectStorage, useValue: createObjectStorage(config, signer) },
        { provide: OutboundHttpClient, useValue: new OutboundHttpClient(new AddressPolicy(config.env.OUTBOUND_ALLOW_LIST)) },
        { provide: OutboundHttp, useExisting: OutboundHttpClient },
      ],
      exports: [APP_CONFIG, INSTANCE_SECRETS, Clock, Ids, UnitOfWork, UrlSigner, ObjectStorage, OutboundHttpClient, OutboundHttp],
    };
  }
}
